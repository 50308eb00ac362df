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
