import CMTProtoCrypto
import TL

/// An RSA public key as MTProto uses it: raw modular exponentiation, identified by its fingerprint.
public struct RSAPublicKey: Sendable, Hashable {
    /// n, big-endian, no leading zeros.
    public let modulus: [UInt8]
    /// e, big-endian, no leading zeros.
    public let exponent: [UInt8]

    public init(modulus: [UInt8], exponent: [UInt8]) {
        self.modulus = BigEndianInteger.trimmed(modulus)
        self.exponent = BigEndianInteger.trimmed(exponent)
    }

    /// The low 64 bits of SHA1(TL bytes(n) ‖ TL bytes(e)), read as a little-endian long
    /// (core.telegram.org/mtproto/auth_key, "server_public_key_fingerprints").
    public var fingerprint: Int64 {
        var writer = TLWriter()
        writer.writeBytes(modulus)
        writer.writeBytes(exponent)
        let digest = MTProtoHash.sha1(writer.bytes)
        return littleEndianInt64(digest[12..<20])
    }

    /// The old scheme that Telethon and most third-party clients use: RSA(SHA1(data) ‖ data ‖ random) on 255 bytes.
    public func encryptOldScheme<R: RandomNumberGenerator>(_ data: [UInt8], using rng: inout R) throws(MTProtoCryptoError) -> [UInt8] {
        guard data.count <= 255 - 20 else { throw .outOfRange("RSA payload of \(data.count) bytes") }
        var block = MTProtoHash.sha1(data) + data
        RandomBytes.append(max(0, 255 - block.count), to: &block, using: &rng)
        return try BigEndianInteger.modExp(block, exponent, modulus)
    }

    /// RSA_PAD (core.telegram.org/mtproto/auth_key, "Presenting proof of work"), the scheme official apps use.
    /// `data` (≤ 144 bytes) is padded with random bytes to 192.
    public func encryptRSAPad<R: RandomNumberGenerator>(_ data: [UInt8], using rng: inout R) throws(MTProtoCryptoError) -> [UInt8] {
        guard data.count <= 144 else { throw .outOfRange("RSA_PAD payload of \(data.count) bytes") }
        var padded = data
        RandomBytes.append(max(0, 192 - padded.count), to: &padded, using: &rng)
        for _ in 0..<64 {
            let tempKey = RandomBytes.make(32, using: &rng)
            let block = try RSAPad.layout(dataWithPadding: padded, tempKey: tempKey)
            if BigEndianInteger.compare(block, modulus) < 0 {
                return try BigEndianInteger.modExp(block, exponent, modulus)
            }
        }
        throw .outOfRange("RSA_PAD block never fell below n")
    }

    /// PKCS#1 PEM ("BEGIN RSA PUBLIC KEY"), the form clients import.
    public func pkcs1PEM() throws(MTProtoCryptoError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = buffer.withUnsafeMutableBufferPointer { out in
            mtp_rsa_public_pem(modulus, modulus.count, exponent, exponent.count, out.baseAddress!, out.count)
        }
        guard length > 0 else { throw .libraryFailure("PEM encoding") }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The server's RSA key: decrypts `p_q_inner_data` in either scheme.
///
/// The private operation goes through OpenSSL's EVP with the key's CRT parameters (recovered from n, e and d once,
/// at init): blinded and constant-time, so its timing says nothing about the key, and about four times faster than
/// exponentiating with d.
public struct RSAPrivateKey: Sendable {
    public let publicKey: RSAPublicKey
    public let privateExponent: [UInt8]
    private let openSSLKey: OpenSSLPrivateKey?

    public init(modulus: [UInt8], publicExponent: [UInt8], privateExponent: [UInt8]) {
        publicKey = RSAPublicKey(modulus: modulus, exponent: publicExponent)
        self.privateExponent = BigEndianInteger.trimmed(privateExponent)
        openSSLKey = OpenSSLPrivateKey(modulus: publicKey.modulus, exponent: publicKey.exponent, privateExponent: self.privateExponent)
    }

    /// block^d mod n for a block below the modulus, of the modulus' length. Only a key OpenSSL refuses (one whose
    /// factors cannot be recovered: not a valid RSA key) takes the plain exponentiation.
    public func privateOperation(_ block: [UInt8]) throws(MTProtoCryptoError) -> [UInt8] {
        guard let openSSLKey else { return try BigEndianInteger.modExp(block, privateExponent, publicKey.modulus) }
        let size = publicKey.modulus.count
        let input = [UInt8](repeating: 0, count: max(0, size - block.count)) + block
        var output = [UInt8](repeating: 0, count: size)
        guard input.count == size, mtp_rsa_private_raw(openSSLKey.pointer, input, size, &output) == 1 else {
            throw .libraryFailure("RSA private operation")
        }
        return output
    }

    /// A fresh key with e = 65537 (OpenSSL's generator).
    public static func generate(bits: Int = 2048) throws(MTProtoCryptoError) -> RSAPrivateKey {
        let size = bits / 8
        var n = [UInt8](repeating: 0, count: size)
        var e = [UInt8](repeating: 0, count: size)
        var d = [UInt8](repeating: 0, count: size)
        guard mtp_rsa_generate(Int32(bits), &n, &e, &d) == 1 else { throw .libraryFailure("RSA key generation") }
        return RSAPrivateKey(modulus: n, publicExponent: e, privateExponent: d)
    }

    /// Decrypts an RSA block from `req_DH_params`. Tries RSA_PAD first (its SHA-256 check makes a false match
    /// impossible in practice) and falls back to the old scheme; the returned data still carries its random
    /// padding, so callers decode the TL object from the front (and, for the old scheme, check `sha1`).
    public func decrypt(_ encrypted: [UInt8]) throws(MTProtoCryptoError) -> RSADecrypted {
        guard encrypted.count == 256, BigEndianInteger.compare(encrypted, publicKey.modulus) < 0 else {
            throw .rsaDecryptionFailed
        }
        let block = try privateOperation(encrypted)
        if let data = RSAPad.open(block) { return .rsaPad(data) }
        guard block[0] == 0 else { throw .rsaDecryptionFailed }
        return .oldScheme(sha1: Array(block[1..<21]), data: Array(block[21...]))
    }
}

/// What an RSA block held.
public enum RSADecrypted: Sendable, Equatable {
    /// RSA_PAD: the 192 bytes of data_with_padding, already integrity-checked.
    case rsaPad([UInt8])
    /// The old scheme: SHA1 of the TL data, then the data followed by random padding.
    case oldScheme(sha1: [UInt8], data: [UInt8])
}

/// The RSA_PAD layout steps that do not involve RSA itself.
enum RSAPad {
    /// temp_key_xor ‖ AES256_IGE(reverse(data_with_padding) ‖ SHA256(temp_key ‖ data_with_padding), temp_key, 0).
    static func layout(dataWithPadding: [UInt8], tempKey: [UInt8]) throws(MTProtoCryptoError) -> [UInt8] {
        let dataWithHash = Array(dataWithPadding.reversed()) + MTProtoHash.sha256(tempKey, dataWithPadding)
        let aesEncrypted = try AES256IGE.encrypt(dataWithHash, key: tempKey, iv: [UInt8](repeating: 0, count: 32))
        let keyHash = MTProtoHash.sha256(aesEncrypted)
        return zip(tempKey, keyHash).map { $0 ^ $1 } + aesEncrypted
    }

    /// Reverses `layout`; nil if the block is not RSA_PAD (hash mismatch).
    static func open(_ block: [UInt8]) -> [UInt8]? {
        guard block.count == 256 else { return nil }
        let aesEncrypted = Array(block[32...])
        let tempKey = zip(block[0..<32], MTProtoHash.sha256(aesEncrypted)).map { $0 ^ $1 }
        guard let dataWithHash = try? AES256IGE.decrypt(aesEncrypted, key: tempKey, iv: [UInt8](repeating: 0, count: 32)) else {
            return nil
        }
        let data = Array(dataWithHash[0..<192].reversed())
        guard MTProtoHash.sha256(tempKey, data) == Array(dataWithHash[192...]) else { return nil }
        return data
    }
}

/// OpenSSL's handle of a private key. Immutable once made, and OpenSSL's private operations on one key may run on
/// several threads at once (each call makes its own EVP_PKEY_CTX), hence `@unchecked Sendable`.
private final class OpenSSLPrivateKey: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init?(modulus: [UInt8], exponent: [UInt8], privateExponent: [UInt8]) {
        guard let pointer = mtp_rsa_private_key_new(modulus, modulus.count, exponent, exponent.count, privateExponent,
                                                    privateExponent.count) else { return nil }
        self.pointer = pointer
    }

    deinit { mtp_rsa_private_key_free(pointer) }
}
