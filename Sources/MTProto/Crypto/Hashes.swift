import CMTProtoCrypto

/// SHA-1 and SHA-256 over the concatenation of `parts` (MTProto hashes are almost always of concatenations).
public enum MTProtoHash {
    public static func sha1(_ parts: [UInt8]...) -> [UInt8] {
        let data = parts.count == 1 ? parts[0] : parts.flatMap { $0 }
        var digest = [UInt8](repeating: 0, count: 20)
        mtp_sha1(data, data.count, &digest)
        return digest
    }

    public static func sha256(_ parts: [UInt8]...) -> [UInt8] {
        let data = parts.count == 1 ? parts[0] : parts.flatMap { $0 }
        var digest = [UInt8](repeating: 0, count: 32)
        mtp_sha256(data, data.count, &digest)
        return digest
    }

    /// HMAC-SHA256 of the concatenation of `parts` under `key` (fake-TLS MTProxy hellos).
    public static func hmacSHA256(key: [UInt8], _ parts: [UInt8]...) -> [UInt8] {
        let data = parts.count == 1 ? parts[0] : parts.flatMap { $0 }
        var mac = [UInt8](repeating: 0, count: 32)
        _ = mtp_hmac_sha256(key, key.count, data, data.count, &mac)   // fails only when OpenSSL cannot allocate
        return mac
    }
}

/// A digest fed in pieces: a file's parts hashed as they are read, never the whole file in memory.
public final class StreamingDigest {
    public enum Kind: Sendable {
        case sha256
        /// The `md5_checksum` of a small upload (core.telegram.org/constructor/inputFile); not for security.
        case md5
    }

    private let context: OpaquePointer

    /// Nil only when OpenSSL cannot allocate.
    public init?(_ kind: Kind) {
        guard let context = mtp_digest_new(kind == .md5 ? Int32(MTP_DIGEST_MD5) : Int32(MTP_DIGEST_SHA256)) else {
            return nil
        }
        self.context = context
    }

    deinit { mtp_digest_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        _ = mtp_digest_update(context, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest; the object is spent after it.
    public func finish() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        guard mtp_digest_final(context, &output, &length) == 1 else { return [] }
        return Array(output.prefix(Int(length)))
    }
}
