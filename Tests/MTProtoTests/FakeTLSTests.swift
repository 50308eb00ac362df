import MTProto
import SyncTesting
import Testing
@testable import MTProto

/// Fake-TLS (`ee` secrets) through the sans-I/O transport connections of both sides.
struct FakeTLSTests {
    static let key: [UInt8] = Array(1...16)
    static let secret: [UInt8] = [0xee] + key + Array("example.com".utf8)
    static let now: Int64 = 1_790_000_000

    /// Feeds `bytes` to `receive` in chunks of 1…300 bytes, as TCP may cut them.
    static func deliver(_ bytes: [UInt8], seed: UInt64, to receive: ([UInt8]) throws -> [[UInt8]]) throws -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        var frames: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            let size = min(bytes.count - offset, 1 + Int(rng.next() % 300))
            frames += try receive(Array(bytes[offset..<(offset + size)]))
            offset += size
        }
        return frames
    }

    func pair(clientTime: Int64 = now, clientSecret: [UInt8] = secret) throws
        -> (ClientTransportConnection<SplitMix64>, ServerTransportConnection<SplitMix64>) {
        let client = try ClientTransportConnection(framing: .paddedIntermediate, secret: clientSecret, time: Int32(clientTime),
                                                   rng: SplitMix64(seed: 90))
        let server = ServerTransportConnection(secret: Self.secret, now: { Self.now }, rng: SplitMix64(seed: 91))
        return (client, server)
    }

    @Test func helloLooksLikeATLSClientHelloNamingTheDomain() {
        var rng = SplitMix64(seed: 1)
        let secret = FakeTLS.Secret(Self.secret)!
        let hello = FakeTLS.clientHello(secret: secret, time: 5, using: &rng)
        #expect(Array(hello[0..<3]) == [0x16, 0x03, 0x01])
        #expect(hello.count == 5 + 512)
        #expect(Int(hello[3]) << 8 | Int(hello[4]) == 512)
        #expect(hello[5] == 0x01)   // ClientHello
        #expect(hello.indices.contains { Array(hello[$0...].prefix(11)) == Array("example.com".utf8) })
    }

    @Test func framesCrossBothWaysInRecordsCutAnywhere() throws {
        var (client, server) = try pair()
        let payloads: [[UInt8]] = (0..<12).map { index in (0..<(index * 700)).map { UInt8(($0 * 7 + index) % 256) } }
        let stream = payloads.flatMap { client.send($0) }
        #expect(Array(stream[0..<3]) == [0x16, 0x03, 0x01])
        let received = try Self.deliver(stream, seed: 3) { try server.receive($0) }
        #expect(received.count == payloads.count)
        #expect(zip(received, payloads).allSatisfy { $0.starts(with: $1) && $0.count - $1.count <= 15 })

        let reply = server.takeReply()
        #expect(Array(reply[0..<3]) == [0x16, 0x03, 0x03])
        #expect(server.takeReply().isEmpty)   // owed once
        let answers: [[UInt8]] = [Array(repeating: 9, count: 40_000), [1, 2, 3, 4]]   // the first spans several records
        let back = try Self.deliver(reply + answers.flatMap { server.send($0) }, seed: 4) { try client.receive($0) }
        #expect(back.count == 2 && back[0].starts(with: answers[0]) && back[1].starts(with: answers[1]))
    }

    @Test func serverRefusesAnotherKeyAStaleHelloAndPlainObfuscation() throws {
        var (wrongKey, server) = try pair(clientSecret: [0xee] + Array(2...17) + Array("example.com".utf8))
        #expect(throws: TransportError.unknownProtocol) { try server.receive(wrongKey.send([0, 0, 0, 0])) }
        #expect(server.takeReply().isEmpty)

        var (stale, server2) = try pair(clientTime: Self.now - FakeTLS.timeTolerance - 1)
        #expect(throws: TransportError.unknownProtocol) { try server2.receive(stale.send([0, 0, 0, 0])) }

        var plain = try ClientTransportConnection(framing: .paddedIntermediate, secret: [0xdd] + Self.key, rng: SplitMix64(seed: 5))
        var server3 = ServerTransportConnection(secret: Self.secret, now: { Self.now }, rng: SplitMix64(seed: 6))
        #expect(throws: TransportError.unknownProtocol) { try server3.receive(plain.send([0, 0, 0, 0])) }
    }

    @Test func clientRefusesAServerHelloThatDoesNotProveTheKey() throws {
        var (client, server) = try pair()
        _ = try server.receive(client.send([0, 0, 0, 0]))
        var reply = server.takeReply()
        reply[FakeTLS.randomOffset] ^= 1
        #expect(throws: TransportError.badServerHello) { try client.receive(reply) }

        var (client2, _) = try pair()
        _ = client2.send([0, 0, 0, 0])
        #expect(throws: TransportError.badServerHello) { try client2.receive([0x17, 0x03, 0x03, 0x00, 0x01, 0x00]) }
    }

    @Test func oversizedOrForeignRecordsFailCleanly() throws {
        var records = FakeTLSRecords()
        #expect(throws: TransportError.self) { try records.unwrap([0x17, 0x03, 0x03, 0xff, 0xff]) }
        var other = FakeTLSRecords()
        #expect(throws: TransportError.unknownProtocol) { try other.unwrap([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]) }
        var skipping = FakeTLSRecords()
        #expect(try skipping.unwrap(FakeTLS.changeCipherSpec + FakeTLSRecords.wrap([7, 8])) == [7, 8])
    }

    /// Random bytes, and a real hello cut or corrupted anywhere, end in an error or a wait for more, never a trap.
    @Test func hostileBytesFailCleanlyOnBothSides() throws {
        var rng = SplitMix64(seed: 12)
        var (client, _) = try pair()
        let hello = client.send([0, 0, 0, 0])
        for round in 0..<600 {
            var server = ServerTransportConnection(secret: Self.secret, now: { Self.now }, rng: SplitMix64(seed: 13))
            var input: [UInt8]
            switch round % 3 {
            case 0: input = (0..<Int(rng.next() % 700)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            case 1: input = Array(hello.prefix(Int(rng.next() % UInt64(hello.count))))
            default:
                input = hello
                input[Int(rng.next() % UInt64(input.count))] ^= UInt8.random(in: 1...255, using: &rng)
            }
            _ = try? server.receive(input)
            var (fresh, _) = try pair()
            _ = fresh.send([0, 0, 0, 0])
            _ = try? fresh.receive(input)
        }
    }

    @Test func secretKinds() {
        #expect(ProxySecretKind(Array(1...16)) == .plain)
        #expect(ProxySecretKind([0xdd] + Array(1...16)) == .paddedIntermediate)
        #expect(ProxySecretKind(Self.secret) == .fakeTLS)
        #expect(ProxySecretKind([0xee] + Array(1...16)) == nil)   // no domain
        #expect(ProxySecretKind(Array(1...15)) == nil)
    }
}
