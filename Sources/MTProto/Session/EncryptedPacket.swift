import CMTProtoCrypto
import TL

/// One decrypted MTProto 2.0 message (core.telegram.org/mtproto/description#encrypted-message-encrypted-data).
public struct DecryptedMessage: Sendable, Equatable {
    public var salt: Int64
    public var sessionID: Int64
    public var messageID: Int64
    public var seqno: Int32
    public var body: [UInt8]

    public init(salt: Int64, sessionID: Int64, messageID: Int64, seqno: Int32, body: [UInt8]) {
        self.salt = salt
        self.sessionID = sessionID
        self.messageID = messageID
        self.seqno = seqno
        self.body = body
    }
}

/// Why an encrypted packet was dropped. The spec says to drop such packets silently (or answer −404 for an
/// unknown key); none of these is a crash.
public enum PacketError: Error, Equatable, Sendable {
    case tooShort(Int)
    /// The packet names another auth key (the caller may look that one up, or answer −404).
    case unknownAuthKey(UInt64)
    case messageKeyMismatch
    case badLength
    case badPadding(Int)
    /// A plain (unencrypted) message where an encrypted one was expected, or the reverse.
    case unexpectedPlainMessage
}

/// Encrypts and decrypts MTProto 2.0 packets: auth_key_id ‖ msg_key ‖ AES-256-IGE(salt ‖ session_id ‖ msg_id ‖
/// seqno ‖ length ‖ body ‖ padding), with 12–1024 bytes of padding and the length a multiple of 16.
public enum EncryptedPacket {
    /// The auth_key_id of a packet (its first 8 bytes, little-endian), or nil if it is too short.
    public static func authKeyID(of packet: [UInt8]) -> UInt64? {
        guard packet.count >= 8 else { return nil }
        return UInt64(bitPattern: littleEndianInt64(packet.prefix(8)))
    }

    public static func encrypt<R: RandomNumberGenerator>(
        _ message: DecryptedMessage, authKey: AuthKey, direction: MessageDirection, using rng: inout R
    ) -> [UInt8] {
        var writer = TLWriter(capacity: message.body.count + 64)
        writer.writeInt64(message.salt)
        writer.writeInt64(message.sessionID)
        writer.writeInt64(message.messageID)
        writer.writeInt32(message.seqno)
        writer.writeInt32(Int32(message.body.count))
        writer.writeRaw(message.body)
        var plaintext = writer.bytes
        // 12–1024 bytes of padding: the minimum that aligns to 16 plus a random number of extra blocks.
        var padding = 12 + (16 - (plaintext.count + 12) % 16) % 16
        padding += 16 * Int.random(in: 0...3, using: &rng)
        RandomBytes.append(padding, to: &plaintext, using: &rng)
        // One buffer for the packet: key id, then msg_key and ciphertext written in place by one C call.
        let id = authKey.id.littleEndian
        return [UInt8](unsafeUninitializedCapacity: 24 + plaintext.count) { packet, count in
            let base = packet.baseAddress!
            withUnsafeBytes(of: id) { UnsafeMutableRawPointer(base).copyMemory(from: $0.baseAddress!, byteCount: 8) }
            mtp_encrypt_message(authKey.bytes, Int32(direction.x), plaintext, plaintext.count, base + 8, base + 24)
            count = 24 + plaintext.count
        }
    }

    /// Decrypts and checks a packet: the key id, msg_key (recomputed over the decrypted data), the length field and
    /// the padding bounds. Trailing bytes after the last whole block (padded intermediate transport) are ignored.
    public static func decrypt(_ packet: [UInt8], authKey: AuthKey, direction: MessageDirection) throws(PacketError) -> DecryptedMessage {
        guard let keyID = authKeyID(of: packet) else { throw .tooShort(packet.count) }
        if keyID == 0 { throw .unexpectedPlainMessage }
        guard keyID == authKey.id else { throw .unknownAuthKey(keyID) }
        let encryptedLength = (packet.count - 24) / 16 * 16
        guard packet.count >= 24, encryptedLength >= 32 else { throw .tooShort(packet.count) }
        var keyMatches = false
        let plaintext = packet.withUnsafeBufferPointer { packet in
            [UInt8](unsafeUninitializedCapacity: encryptedLength) { plaintext, count in
                keyMatches = mtp_decrypt_message(authKey.bytes, Int32(direction.x), packet.baseAddress! + 8, packet.baseAddress! + 24,
                                                 encryptedLength, plaintext.baseAddress!) == 1
                count = encryptedLength
            }
        }
        guard keyMatches else { throw .messageKeyMismatch }
        var reader = TLReader(plaintext)
        do {
            let salt = try reader.readInt64()
            let sessionID = try reader.readInt64()
            let messageID = try reader.readInt64()
            let seqno = try reader.readInt32()
            let length = Int(try reader.readInt32())
            guard length >= 0, length % 4 == 0, length <= reader.remaining else { throw PacketError.badLength }
            let padding = reader.remaining - length
            guard (12...1024).contains(padding) else { throw PacketError.badPadding(padding) }
            let body = Array(try reader.readRaw(count: length))
            return DecryptedMessage(salt: salt, sessionID: sessionID, messageID: messageID, seqno: seqno, body: body)
        } catch let error as PacketError {
            throw error
        } catch {
            throw .badLength
        }
    }
}

/// Unencrypted messages of the auth-key exchange: auth_key_id = 0 ‖ msg_id ‖ length ‖ body.
public enum PlainMessage {
    public static func encode(messageID: Int64, body: [UInt8]) -> [UInt8] {
        var writer = TLWriter(capacity: body.count + 20)
        writer.writeInt64(0)
        writer.writeInt64(messageID)
        writer.writeInt32(Int32(body.count))
        writer.writeRaw(body)
        return writer.bytes
    }

    public static func decode(_ packet: [UInt8]) throws(PacketError) -> (messageID: Int64, body: [UInt8]) {
        var reader = TLReader(packet)
        do {
            guard try reader.readInt64() == 0 else { throw PacketError.unexpectedPlainMessage }
            let messageID = try reader.readInt64()
            let length = Int(try reader.readInt32())
            guard length >= 0, length <= reader.remaining else { throw PacketError.badLength }
            return (messageID, Array(try reader.readRaw(count: length)))
        } catch let error as PacketError {
            throw error
        } catch {
            throw .tooShort(packet.count)
        }
    }
}
