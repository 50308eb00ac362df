import MTProto
import SyncTesting
import Testing
@testable import MTProto

struct TransportConnectionTests {
    struct Setup: CustomStringConvertible, Sendable {
        var framing: TransportFraming
        var obfuscated: Bool
        var secret: [UInt8]?
        var description: String { "\(framing) obfuscated=\(obfuscated) secret=\(secret?.count ?? 0)" }
    }

    static let setups: [Setup] = TransportFraming.allCases.map { Setup(framing: $0, obfuscated: false, secret: nil) }
        + [.abridged, .intermediate, .paddedIntermediate].map { Setup(framing: $0, obfuscated: true, secret: nil) }
        + [Setup(framing: .intermediate, obfuscated: true, secret: Array(1...16)),
           Setup(framing: .paddedIntermediate, obfuscated: true, secret: [0xdd] + Array(1...16))]

    @Test(arguments: setups)
    func clientAndServerExchangeFramesInRandomChunks(setup: Setup) throws {
        var client = try ClientTransportConnection(framing: setup.framing, obfuscated: setup.obfuscated, secret: setup.secret,
                                                   rng: SplitMix64(seed: 60))
        var server = ServerTransportConnection(secret: setup.secret, rng: SplitMix64(seed: 61))
        var rng = SplitMix64(seed: 62)
        let payloads: [[UInt8]] = (0..<20).map { index in (0..<(index * 52)).map { UInt8(($0 + index) % 256) } }
        let stream = payloads.flatMap { client.send($0) }
        var received: [[UInt8]] = []
        var offset = 0
        while offset < stream.count {
            let size = min(stream.count - offset, 1 + Int(rng.next() % 300))
            received += try server.receive(Array(stream[offset..<(offset + size)]))
            offset += size
        }
        #expect(received.count == payloads.count)
        if setup.framing == .paddedIntermediate {
            // Padding (0–15 bytes) stays inside the frame; the session above ignores it.
            #expect(zip(received, payloads).allSatisfy { $0.starts(with: $1) && $0.count - $1.count <= 15 })
        } else {
            #expect(received == payloads)
        }
        #expect(server.framing == setup.framing)
        let answer: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let frames = try client.receive(server.send(answer))
        #expect(frames.count == 1 && frames[0].starts(with: answer))
    }

    @Test func serverWithASecretRefusesPlainAndWrongSecretClients() throws {
        var plain = try ClientTransportConnection(framing: .intermediate, rng: SplitMix64(seed: 63))
        var server = ServerTransportConnection(secret: Array(1...16), rng: SplitMix64(seed: 64))
        #expect(throws: TransportError.unknownProtocol) { try server.receive(plain.send([0, 0, 0, 0])) }
        #expect(throws: TransportError.unknownProtocol) { try server.receive([1, 2, 3, 4]) }   // stays failed

        var wrong = try ClientTransportConnection(framing: .intermediate, obfuscated: true, secret: Array(2...17),
                                                  rng: SplitMix64(seed: 65))
        var secured = ServerTransportConnection(secret: Array(1...16), rng: SplitMix64(seed: 66))
        #expect(throws: TransportError.unknownProtocol) { try secured.receive(wrong.send([0, 0, 0, 0])) }
    }

    @Test func garbageFirstBytesFailCleanly() {
        var rng = SplitMix64(seed: 67)
        var failures = 0
        for _ in 0..<500 {
            var server = ServerTransportConnection(rng: SplitMix64(seed: 68))
            let garbage = (0..<(64 + Int(rng.next() % 120))).map { _ in UInt8.random(in: 0...255, using: &rng) }
            do { _ = try server.receive(garbage) } catch { failures += 1 }
        }
        // Random bytes are almost always an obfuscated header with an unknown tag (1 in 2^30 decrypts to a valid one).
        #expect(failures > 490)
    }
}
