import CMTProtoCrypto

/// Key material of MTProto 2.0 (core.telegram.org/mtproto/description).
public struct AuthKey: Sendable, Hashable {
    /// 256 bytes, leading zeros kept.
    public let bytes: [UInt8]
    /// The low 64 bits of SHA1(auth_key), as the little-endian long that prefixes every encrypted packet.
    public let id: UInt64
    /// The high 64 bits of SHA1(auth_key) (used in new_nonce_hash).
    public let auxHash: [UInt8]

    public init(bytes: [UInt8]) throws(MTProtoCryptoError) {
        guard bytes.count == 256 else { throw .badKeyLength(expected: 256, actual: bytes.count) }
        self.bytes = bytes
        let digest = MTProtoHash.sha1(bytes)
        id = UInt64(bitPattern: littleEndianInt64(digest[12..<20]))
        auxHash = Array(digest[0..<8])
    }

    /// The id as it appears on the wire (8 bytes, little-endian).
    public var idBytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: id >> (8 * UInt64($0))) } }

    /// msg_key = middle 128 bits of SHA256(auth_key[88+x ..< 120+x] ‖ plaintext ‖ padding).
    public func messageKey(for plaintextWithPadding: [UInt8], direction: MessageDirection) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 16) { messageKey, count in
            mtp_message_key(bytes, Int32(direction.x), plaintextWithPadding, plaintextWithPadding.count, messageKey.baseAddress!)
            count = 16
        }
    }

    /// aes_key and aes_iv for a msg_key (MTProto 2.0 KDF). A msg_key is 16 bytes; a longer one is cut, a shorter
    /// one padded with zeros.
    public func aesKeyAndIV(messageKey: [UInt8], direction: MessageDirection) -> (key: [UInt8], iv: [UInt8]) {
        var sixteen = [UInt8](repeating: 0, count: 16)
        sixteen.replaceSubrange(0..<min(16, messageKey.count), with: messageKey.prefix(16))
        var key = [UInt8](repeating: 0, count: 32)
        var iv = [UInt8](repeating: 0, count: 32)
        mtp_message_aes_key_iv(bytes, Int32(direction.x), sixteen, &key, &iv)
        return (key, iv)
    }
}

/// Which side encrypted a message: x = 0 for client → server, 8 for server → client.
public enum MessageDirection: Sendable {
    case clientToServer
    case serverToClient

    var x: Int { self == .clientToServer ? 0 : 8 }
}

/// Key derivations of the auth-key exchange (core.telegram.org/mtproto/auth_key).
public enum HandshakeCrypto {
    /// tmp_aes_key and tmp_aes_iv that encrypt server_DH_inner_data and client_DH_inner_data.
    public static func temporaryAES(serverNonce: [UInt8], newNonce: [UInt8]) -> (key: [UInt8], iv: [UInt8]) {
        let newServer = MTProtoHash.sha1(newNonce, serverNonce)
        let serverNew = MTProtoHash.sha1(serverNonce, newNonce)
        let newNew = MTProtoHash.sha1(newNonce, newNonce)
        return (newServer + Array(serverNew[0..<12]), Array(serverNew[12..<20]) + newNew + Array(newNonce[0..<4]))
    }

    /// new_nonce_hash1/2/3: the last 128 bits of SHA1(new_nonce ‖ number ‖ aux_hash).
    public static func newNonceHash(newNonce: [UInt8], number: UInt8, authKey: AuthKey) -> [UInt8] {
        Array(MTProtoHash.sha1(newNonce, [number], authKey.auxHash)[4..<20])
    }

    /// The first server salt: new_nonce[0..<8] XOR server_nonce[0..<8], read as a little-endian long.
    public static func initialSalt(newNonce: [UInt8], serverNonce: [UInt8]) -> Int64 {
        littleEndianInt64(zip(newNonce[0..<8], serverNonce[0..<8]).map { $0 ^ $1 })
    }
}
