import MTProto
import SyncTesting
import Foundation
import Testing
import TL
@testable import MTProto

/// Client and server cores over in-memory transports with a fake clock: key exchange, then encrypted calls.
struct EndToEndInMemoryTests {
    struct Link {
        var client: ClientTransportConnection<SplitMix64>
        var server = ServerTransportConnection(rng: SplitMix64(seed: 71))

        init(framing: TransportFraming, obfuscated: Bool) throws {
            client = try ClientTransportConnection(framing: framing, obfuscated: obfuscated, rng: SplitMix64(seed: 70))
        }

        mutating func up(_ payload: [UInt8]) throws -> [UInt8] {
            let frames = try server.receive(client.send(payload))
            return try #require(frames.first)
        }

        mutating func down(_ payload: [UInt8]) throws -> [UInt8] {
            let frames = try client.receive(server.send(payload))
            return try #require(frames.first)
        }
    }

    /// Runs the key exchange over `link`; the client's clock reads `clientNow`, the server's `serverNow`.
    static func handshake(_ link: inout Link, rsa: RSAPrivateKey, clientNow: Double, serverNow: Double) throws -> AuthKeyExchangeResult {
        var client = ClientAuthKeyExchange(publicKeys: [rsa.publicKey], dc: 2, rng: SplitMix64(seed: 72))
        var server = ServerAuthKeyExchange(rsaKey: rsa, rng: SplitMix64(seed: 73))
        var clientIDs = MessageIDGenerator()
        var serverIDs = MessageIDGenerator()
        var body = client.start()
        while true {
            let received = try PlainMessage.decode(try link.up(PlainMessage.encode(messageID: clientIDs.next(.client, now: clientNow), body: body)))
            let reply: [UInt8]
            var result: AuthKeyExchangeResult?
            switch try server.receive(received.body, now: Int32(serverNow)) {
            case let .reply(bytes): reply = bytes
            case let .completed(done, bytes): (reply, result) = (bytes, done)
            }
            let answer = try PlainMessage.decode(try link.down(PlainMessage.encode(messageID: serverIDs.next(.serverResponse, now: serverNow), body: reply)))
            switch try client.receive(answer.body, now: Int32(clientNow)) {
            case let .send(next): body = next
            case let .completed(clientResult):
                #expect(clientResult.authKey == result?.authKey)
                return clientResult
            }
        }
    }

    @Test(arguments: [(TransportFraming.abridged, true), (.intermediate, false), (.paddedIntermediate, true), (.full, false)])
    func keyExchangeThenCallsWithAClientClockTwentyMinutesAhead(framing: TransportFraming, obfuscated: Bool) throws {
        let rsa = try #require(AuthKeyExchangeTests.rsaKey)
        var link = try Link(framing: framing, obfuscated: obfuscated)
        let serverNow = 1_700_000_000.0
        let clientNow = serverNow + 1_200   // a client clock 20 minutes fast
        let keys = try Self.handshake(&link, rsa: rsa, clientNow: clientNow, serverNow: serverNow)
        #expect(keys.serverTimeOffset == -1_200)

        // Deliberately ignore the offset learned in the handshake, so the session has to correct its clock.
        var client = ClientSession(authKey: keys.authKey, salt: keys.serverSalt, rng: SplitMix64(seed: 74))
        var server = ServerSession(authKey: keys.authKey, salt: keys.serverSalt, createdAt: Int32(serverNow), rng: SplitMix64(seed: 75))
        let call = API.functions.InvokeWithLayer(layer: 229, query: API.functions.help.GetNearestDc()).serialized()
        let (token, firstPacket) = client.call(call, now: clientNow)
        var packet = firstPacket
        var answered: Result<[UInt8], RPCError>?
        var sessionCreated = false
        for _ in 0..<4 where answered == nil {
            for event in server.receive(try link.up(packet), now: serverNow) {
                var toClient: [[UInt8]] = []
                switch event {
                case let .send(bytes): toClient.append(bytes)
                case let .invoke(rpc):
                    #expect(rpc.layer == 229)
                    let nearest = API.NearestDc.nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)).serialized()
                    toClient.append(server.respond(to: rpc.messageID, result: .success(nearest), now: serverNow))
                default: break
                }
                for bytes in toClient {
                    for clientEvent in client.receive(try link.down(bytes), now: clientNow) {
                        switch clientEvent {
                        case let .send(next):
                            // An ack goes up and is absorbed; a resend replaces the packet for the next round.
                            if (try? MT.MsgsAck.deserialize(EncryptedPacket.decrypt(next, authKey: keys.authKey, direction: .clientToServer).body)) == nil {
                                packet = next
                            } else {
                                _ = server.receive(try link.up(next), now: serverNow)
                            }
                        case let .result(resultToken, result):
                            #expect(resultToken == token)
                            answered = result
                        case .sessionCreated: sessionCreated = true
                        default: break
                        }
                    }
                }
            }
        }
        #expect(sessionCreated)
        #expect(abs(client.timeOffset + 1_200) < 2)
        let bytes = try #require(try answered?.get())
        #expect(try API.NearestDc.deserialize(bytes) == .nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)))
    }
}
