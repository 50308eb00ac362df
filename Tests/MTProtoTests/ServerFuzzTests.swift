import MTProto
import SyncTesting
import Foundation
import Testing
import TL
@testable import MTProto

/// 100,000 mutated frames into the server's connection core: handshake messages, encrypted packets whose
/// *plaintext* was mutated (so they pass the msg_key check and reach the session's parsers), and raw garbage.
struct ServerFuzzTests {
    @Test func hundredThousandMutatedFramesNeverCrashTheServerCore() throws {
        let rsa = try #require(AuthKeyExchangeTests.rsaKey)
        let stored = StoredAuthKey(authKey: try AuthKey(bytes: (0...255).map { UInt8(($0 * 5 + 1) % 256) }), salt: 77)
        let now = 1_700_000_000.0
        var rng = SplitMix64(seed: 90)
        var ids = MessageIDGenerator()

        // Seeds: real handshake messages and real session bodies.
        let started = try StartedExchange(rsa: rsa, clientSeed: 91, serverSeed: 92)
        let (reqPQ, reqDH) = (started.reqPQ, started.reqDH)
        let bodies: [[UInt8]] = [
            API.functions.InvokeWithLayer(layer: 229, query: API.functions.help.GetConfig()).serialized(),
            MessageContainer.encode([
                ContainedMessage(messageID: ids.next(.client, now: now), seqno: 1, body: MT.functions.Ping(pingId: 1).serialized()),
                ContainedMessage(messageID: ids.next(.client, now: now), seqno: 2, body: MT.MsgsAck.msgsAck(.init(msgIds: [1])).serialized()),
            ]),
            GzipPacked.pack(API.functions.updates.GetState().serialized() + [UInt8](repeating: 0, count: 600)),
            MT.MsgsStateReq.msgsStateReq(.init(msgIds: [1, 2, 3])).serialized(),
            MT.functions.GetFutureSalts(num: 3).serialized(),
        ]

        var handled = 0
        for iteration in 0..<100_000 {
            var connection = ServerConnection(rsaKey: rsa, rng: SplitMix64(seed: 93)) { $0 == stored.authKey.id ? stored : nil }
            let frame: [UInt8]
            switch iteration % 50 {
            case 0:
                // RSA decryption is the expensive path: one in fifty frames is a mutated req_DH_params.
                _ = connection.receive(PlainMessage.encode(messageID: ids.next(.client, now: now), body: reqPQ), now: now)
                frame = PlainMessage.encode(messageID: ids.next(.client, now: now), body: mutate(reqDH, &rng))
            case 1...9:
                frame = PlainMessage.encode(messageID: ids.next(.client, now: now), body: mutate(reqPQ, &rng))
            case 10...44:
                let body = mutate(bodies[iteration % bodies.count], &rng)
                let message = DecryptedMessage(salt: iteration % 7 == 0 ? 1 : 77, sessionID: 5,
                                               messageID: iteration % 11 == 0 ? Int64(bitPattern: rng.next()) : ids.next(.client, now: now),
                                               seqno: Int32(truncatingIfNeeded: rng.next()), body: body)
                frame = EncryptedPacket.encrypt(message, authKey: stored.authKey, direction: .clientToServer, using: &rng)
            default:
                frame = (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            }
            _ = connection.receive(frame, now: now)
            handled += 1
        }
        #expect(handled == 100_000)
    }

    private func mutate(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<(1 + Int(rng.next() % 4)) {
            switch rng.next() % 4 {
            case 0 where !bytes.isEmpty: bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            case 1 where bytes.count > 4: bytes.removeLast(Int(rng.next() % UInt64(min(bytes.count, 12))))
            case 2 where bytes.count >= 8:
                let offset = Int(rng.next() % UInt64(bytes.count / 4)) * 4
                let word: UInt32 = [0x7fff_ffff, 0xffff_ffff, 0x1cb5_c415, 0x73f1_f8dc, 0x3072_cfa1][Int(rng.next() % 5)]
                withUnsafeBytes(of: word.littleEndian) { bytes.replaceSubrange(offset..<min(offset + 4, bytes.count), with: $0) }
            default: bytes += (0..<4).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            }
        }
        return bytes
    }
}
