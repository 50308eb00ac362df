import Foundation

/// Why a config blob was refused.
public enum ConfigBlobError: Error, Equatable, Sendable {
    /// Not base64, or not one RSA block long.
    case malformed(String)
    /// The block does not open with the public key into a hashed payload: made with another key, or altered.
    case badSignature
    /// The payload's length field or TL is wrong although the hash matched.
    case badPayload(String)
    /// The config's validity (`date` … `expires`) does not include now.
    case expired(date: Int32, expires: Int32, now: Int32)
}

/// The signed config blob of endpoint discovery, in the format Telegram publishes through DNS and other fallback
/// sources: one 256-byte RSA block, computed with the server's *private* key, so that only the key's owner can make
/// one and anyone with the public key can open it. Opened with the public key it reads
///
///     key(32) ‖ AES-256-CBC(key, iv = key[16..<32]) of: length(4, LE, counting itself) ‖ help.configSimple ‖
///                                                        random padding to 208 bytes ‖ SHA-256 of those 208 [0..<16]
///
/// The SHA-256 prefix is what makes it a signature: without the private key no block opens to a matching hash.
/// Transported as base64 text.
public enum SignedConfigBlob {
    static let blockSize = 256
    static let payloadSize = 208

    /// The blob for `config`, sealed with `key`. Throws when the config does not fit in one block.
    public static func seal<R: RandomNumberGenerator>(_ config: SimpleConfig, with key: RSAPrivateKey,
                                                      using rng: inout R) throws -> String {
        let body = config.serialized()
        guard body.count + 4 <= payloadSize else {
            throw ConfigBlobError.badPayload("\(body.count) bytes of config do not fit in \(payloadSize - 4)")
        }
        var payload = withUnsafeBytes(of: Int32(body.count + 4).littleEndian) { Array($0) } + body
        RandomBytes.append(payloadSize - payload.count, to: &payload, using: &rng)
        payload += MTProtoHash.sha256(payload).prefix(16)
        for _ in 0..<64 {
            let aesKey = RandomBytes.make(32, using: &rng)
            let block = aesKey + (try AES256CBC.encrypt(payload, key: aesKey, iv: Array(aesKey[16..<32])))
            guard BigEndianInteger.compare(block, key.publicKey.modulus) < 0 else { continue }
            let sealed = try key.privateOperation(block)
            return Data(sealed).base64EncodedString()
        }
        throw ConfigBlobError.badPayload("no block fell below the modulus")
    }

    /// Opens a blob with `publicKey` and checks that `now` lies within its validity.
    public static func open(_ text: String, with publicKey: RSAPublicKey, now: Int32) throws(ConfigBlobError) -> SimpleConfig {
        let cleaned = text.filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: cleaned) else { throw .malformed("not base64") }
        let sealed = [UInt8](data)
        guard sealed.count == blockSize, publicKey.modulus.count == blockSize else {
            throw .malformed("\(sealed.count) bytes; one \(blockSize)-byte RSA block expected")
        }
        guard BigEndianInteger.compare(sealed, publicKey.modulus) < 0,
              let block = try? BigEndianInteger.modExp(sealed, publicKey.exponent, publicKey.modulus) else { throw .badSignature }
        let aesKey = Array(block[0..<32])
        guard let payload = try? AES256CBC.decrypt(Array(block[32...]), key: aesKey, iv: Array(aesKey[16..<32])),
              MTProtoHash.sha256(Array(payload[0..<payloadSize])).prefix(16).elementsEqual(payload[payloadSize...])
        else { throw .badSignature }
        let length = Int(Int32(littleEndian: payload[0..<4].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }))
        guard length >= 8, length <= payloadSize else { throw .badPayload("length \(length)") }
        let config: SimpleConfig
        do {
            config = try SimpleConfig.deserialize(Array(payload[4..<length]))
        } catch {
            throw .badPayload("\(error)")
        }
        guard config.date <= now + 60, now <= config.expires else {
            throw .expired(date: config.date, expires: config.expires, now: now)
        }
        return config
    }
}
