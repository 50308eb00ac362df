import TL

/// Why an auth-key exchange was abandoned. The spec's answer to every one of these is to drop the exchange
/// (and the connection); none of them is a crash.
public enum HandshakeError: Error, Equatable, Sendable {
    /// A message that does not belong at this step (named by its TL constructor, or its id).
    case unexpectedMessage(String)
    case decoding(TLDecodingError)
    case nonceMismatch
    case unknownFingerprint(Int64)
    case pqMismatch
    case badPQ
    case crypto(MTProtoCryptoError)
    /// An encrypted inner object whose SHA-1 does not match.
    case hashMismatch
    /// The server offered another prime or generator than Telegram's.
    case unsupportedDHGroup
    case dhValueOutOfRange
    /// The peer said `server_DH_params_fail` / `dh_gen_fail` (with a valid hash), or retries ran out.
    case rejectedByPeer(String)
    /// The exchange already finished or failed.
    case finished
}

/// Encoding steps shared by both roles.
enum HandshakeCoding {
    /// SHA1(data) ‖ data ‖ 0–15 random bytes, AES-256-IGE encrypted with the temporary key
    /// (answer_with_hash / data_with_hash of core.telegram.org/mtproto/auth_key).
    static func encryptWithHash<R: RandomNumberGenerator>(
        _ data: [UInt8], key: [UInt8], iv: [UInt8], using rng: inout R
    ) throws(HandshakeError) -> [UInt8] {
        var block = MTProtoHash.sha1(data) + data
        if block.count % 16 != 0 { RandomBytes.append(16 - block.count % 16, to: &block, using: &rng) }
        do { return try AES256IGE.encrypt(block, key: key, iv: iv) } catch { throw .crypto(error) }
    }

    /// Reverses `encryptWithHash`, checking the SHA-1 over exactly the bytes the TL object used.
    static func decryptWithHash<Value: TLValue>(
        _ encrypted: [UInt8], key: [UInt8], iv: [UInt8], as type: Value.Type
    ) throws(HandshakeError) -> Value {
        let block: [UInt8]
        do { block = try AES256IGE.decrypt(encrypted, key: key, iv: iv) } catch { throw .crypto(error) }
        guard block.count > 20 else { throw .hashMismatch }
        var reader = TLReader(block, offset: 20)
        let value: Value
        do { value = try Value.decode(from: &reader) } catch { throw .decoding(error) }
        guard MTProtoHash.sha1(Array(block[20..<reader.offset])) == Array(block[0..<20]) else { throw .hashMismatch }
        return value
    }

    static func decode<Value: TLValue>(_ bytes: [UInt8], as type: Value.Type) throws(HandshakeError) -> Value {
        do { return try Value.deserialize(bytes) } catch { throw .decoding(error) }
    }

    static func int128(_ bytes: [UInt8]) -> TLInt128 { TLInt128(bytes: bytes) ?? TLInt128(low: 0, high: 0) }
    static func int256(_ bytes: [UInt8]) -> TLInt256 { TLInt256(bytes: bytes) ?? TLInt256(words: (0, 0, 0, 0)) }

}

/// What a completed exchange produced.
public struct AuthKeyExchangeResult: Sendable, Equatable {
    public let authKey: AuthKey
    /// new_nonce[0..<8] XOR server_nonce[0..<8].
    public let serverSalt: Int64
    /// Server time minus local time at the exchange, in seconds (client role; 0 on the server).
    public let serverTimeOffset: Int32
    /// The data center the client asked for (`p_q_inner_data_dc`), if it said.
    public let dc: Int32?
    /// Seconds a temporary key lives (`p_q_inner_data_temp*`); nil for a permanent key.
    public let expiresIn: Int32?

    /// A result rebuilt from storage (a client's saved key).
    public init(authKey: AuthKey, serverSalt: Int64, serverTimeOffset: Int32, dc: Int32?, expiresIn: Int32?) {
        self.authKey = authKey
        self.serverSalt = serverSalt
        self.serverTimeOffset = serverTimeOffset
        self.dc = dc
        self.expiresIn = expiresIn
    }
}
