import MTProto
import SyncTesting
import Foundation
import Testing
import TL
@testable import MTProto

struct MessageIDTests {
    @Test func idsIncreaseStrictlyWithTheRightLowBits() {
        var generator = MessageIDGenerator()
        var last: Int64 = 0
        for step in 0..<1_000 {
            let kind: MessageIDGenerator.Kind = [.client, .serverResponse, .serverInitiated][step % 3]
            let id = generator.next(kind, now: 1_700_000_000.5)   // the same instant every time
            #expect(id > last)
            #expect(id & 3 == kind.rawValue)
            #expect(id >> 32 == 1_700_000_000)
            last = id
        }
    }

    @Test func validatorEnforcesWindowLowBitsAndReplays() {
        var validator = MessageIDValidator(capacity: 4)
        let now = 1_700_000_000.0
        let base = Int64(now) << 32
        #expect(validator.check(base, now: now) == nil)
        #expect(validator.check(base, now: now) == .messageIDDuplicate)
        #expect(validator.check(base + 1, now: now) == .messageIDBadLowBits)
        #expect(validator.check((Int64(now) - 301) << 32, now: now) == .messageIDTooLow)
        #expect(validator.check((Int64(now) + 31) << 32, now: now) == .messageIDTooHigh)
        #expect(validator.check((Int64(now) + 29) << 32, now: now) == nil)
        for step in 1...4 { #expect(validator.check(base + Int64(step) * 4, now: now) == nil) }
        // `base` has been forgotten (capacity 4): replaying it is refused as too old to check rather than accepted.
        #expect(validator.check(base, now: now) == .messageTooOld)
    }

    @Test func seqnoCountsContentRelatedMessages() {
        var seqno = SequenceNumberGenerator()
        #expect(seqno.next(contentRelated: true) == 1)
        #expect(seqno.next(contentRelated: false) == 2)
        #expect(seqno.next(contentRelated: true) == 3)
        #expect(seqno.next(contentRelated: true) == 5)
        #expect(seqno.next(contentRelated: false) == 6)
    }
}

struct EncryptedPacketTests {
    static let authKey = try! AuthKey(bytes: (0...255).map { UInt8($0) })

    @Test func decryptsTheServerPongVector() throws {
        let packet = hex("32d1586ea457dfc8675b9192f536a70a26c11dcf035053dd630d449718d50f81ee3be51c5eee52cedcb96291f76e6d6fed6577f66f5d04120dfac8b4ad382466aca05c6dd674cc5d2b725c469255c51f4e52b453d9da0d60")
        let message = try EncryptedPacket.decrypt(packet, authKey: Self.authKey, direction: .serverToClient)
        #expect(message.salt == 0x0123_4567_89ab_cdef)
        #expect(message.sessionID == 0x0f0e_0d0c_0b0a_0908)
        #expect(message.messageID == 0x5f00_0000_0000_000d)
        #expect(message.seqno == 1)
        #expect(hexString(message.body) == "c5737734040000000000005f2a00000000000000")
    }

    @Test(arguments: [MessageDirection.clientToServer, .serverToClient])
    func roundTripsAndChecksEveryField(direction: MessageDirection) throws {
        var rng = SplitMix64(seed: 40)
        for length in stride(from: 0, through: 400, by: 4) {
            let message = DecryptedMessage(salt: -5, sessionID: 77, messageID: 1 << 40, seqno: 3,
                                           body: (0..<length).map { UInt8($0 % 256) })
            var packet = EncryptedPacket.encrypt(message, authKey: Self.authKey, direction: direction, using: &rng)
            #expect((packet.count - 24) % 16 == 0)
            #expect(try EncryptedPacket.decrypt(packet, authKey: Self.authKey, direction: direction) == message)
            packet += [1, 2, 3]   // padded intermediate adds bytes after the last block
            #expect(try EncryptedPacket.decrypt(packet, authKey: Self.authKey, direction: direction) == message)
        }
    }

    @Test func dropsWrongKeysTamperingAndTruncation() throws {
        var rng = SplitMix64(seed: 41)
        let message = DecryptedMessage(salt: 1, sessionID: 2, messageID: 3 << 32, seqno: 1, body: [1, 2, 3, 4])
        let packet = EncryptedPacket.encrypt(message, authKey: Self.authKey, direction: .clientToServer, using: &rng)
        // The other direction's keys.
        #expect(throws: PacketError.messageKeyMismatch) {
            try EncryptedPacket.decrypt(packet, authKey: Self.authKey, direction: .serverToClient)
        }
        var tampered = packet
        tampered[40] ^= 1
        #expect(throws: PacketError.messageKeyMismatch) {
            try EncryptedPacket.decrypt(tampered, authKey: Self.authKey, direction: .clientToServer)
        }
        let otherKey = try AuthKey(bytes: (0...255).map { UInt8(255 - $0) })
        #expect(throws: PacketError.unknownAuthKey(Self.authKey.id)) {
            try EncryptedPacket.decrypt(packet, authKey: otherKey, direction: .clientToServer)
        }
        for length in [0, 7, 8, 23, 24, 40, 55] {
            #expect(throws: PacketError.self) {
                try EncryptedPacket.decrypt(Array(packet.prefix(length)), authKey: Self.authKey, direction: .clientToServer)
            }
        }
        #expect(throws: PacketError.unexpectedPlainMessage) {
            try EncryptedPacket.decrypt(PlainMessage.encode(messageID: 4, body: [0, 0, 0, 0]) + [UInt8](repeating: 0, count: 40),
                                        authKey: Self.authKey, direction: .clientToServer)
        }
    }

    @Test func plainMessagesRoundTripAndRejectGarbage() throws {
        let encoded = PlainMessage.encode(messageID: 99 << 32, body: [1, 2, 3, 4])
        let decoded = try PlainMessage.decode(encoded)
        #expect(decoded.messageID == 99 << 32)
        #expect(decoded.body == [1, 2, 3, 4])
        #expect(throws: PacketError.badLength) { try PlainMessage.decode(Array(encoded.dropLast())) }
        #expect(throws: PacketError.unexpectedPlainMessage) { try PlainMessage.decode([1] + Array(encoded.dropFirst())) }
        #expect(throws: PacketError.tooShort(5)) { try PlainMessage.decode([0, 0, 0, 0, 0]) }
    }
}

struct ContainerAndGzipTests {
    @Test func containersRoundTripAndRejectNestingAndBadLengths() throws {
        let messages = [
            ContainedMessage(messageID: 4 << 32, seqno: 1, body: MT.functions.Ping(pingId: 7).serialized()),
            ContainedMessage(messageID: 8 << 32, seqno: 2, body: MT.MsgsAck.msgsAck(.init(msgIds: [1])).serialized()),
        ]
        let body = MessageContainer.encode(messages)
        #expect(try MessageContainer.decode(body) == messages)
        #expect(try MessageContainer.decode(MT.functions.Ping(pingId: 1).serialized()) == nil)

        let nested = MessageContainer.encode([ContainedMessage(messageID: 12 << 32, seqno: 3, body: body)])
        #expect(throws: TLDecodingError.self) { try MessageContainer.decode(nested) }
        var badLength = body
        badLength[20] = 3   // first inner length no longer a multiple of 4
        #expect(throws: TLDecodingError.self) { try MessageContainer.decode(badLength) }
        for length in 4..<body.count {   // shorter prefixes carry no constructor id: not a container
            #expect(throws: TLDecodingError.self) { try MessageContainer.decode(Array(body.prefix(length))) }
        }
    }

    @Test func gzipPackedRoundTripsAndRefusesBombsAndGarbage() throws {
        let object = API.Updates.updatesTooLong(.init()).serialized() + [UInt8](repeating: 0x41, count: 2_000)
        let packed = GzipPacked.pack(object)
        #expect(packed.count < object.count)
        #expect(try GzipPacked.unpack(packed) == object)
        #expect(try GzipPacked.unpack(object) == nil)

        let bomb = GzipPacked.pack([UInt8](repeating: 0, count: GzipPacked.maximumUnpackedSize + 1))
        #expect(throws: GzipPacked.Failure.tooLarge) { try GzipPacked.unpack(bomb) }
        var corrupt = packed
        corrupt[20] ^= 0xff
        corrupt[21] ^= 0xff
        #expect(throws: GzipPacked.Failure.self) { try GzipPacked.unpack(corrupt) }
        #expect(throws: GzipPacked.Failure.corrupt) { try GzipPacked.unpack(Array(packed.prefix(10))) }
    }
}

struct RPCErrorTests {
    @Test func parsesFloodWaitAndMigrations() {
        #expect(RPCError(code: 420, message: "FLOOD_WAIT_31").floodWaitSeconds == 31)
        #expect(RPCError(code: 420, message: "FLOOD_PREMIUM_WAIT_5").floodWaitSeconds == 5)
        #expect(RPCError(code: 303, message: "PHONE_MIGRATE_4").migration == .phone(dc: 4))
        #expect(RPCError(code: 303, message: "USER_MIGRATE_2").migration == .user(dc: 2))
        #expect(RPCError(code: 303, message: "NETWORK_MIGRATE_1").migration == .network(dc: 1))
        #expect(RPCError(code: 400, message: "PEER_ID_INVALID").migration == nil)
        #expect(RPCError(code: 400, message: "PEER_ID_INVALID").floodWaitSeconds == nil)
        #expect(RPCError(code: 303, message: "PHONE_MIGRATE_X").migration == nil)
        let error = RPCError(code: 420, message: "FLOOD_WAIT_3")
        #expect(RPCError(try! MT.RpcError.deserialize(error.object.serialized()).value) == error)
    }
}
