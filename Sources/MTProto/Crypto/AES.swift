import CMTProtoCrypto

/// AES-256 in the modes MTProto uses (core.telegram.org/mtproto/description#defining-aes-key-and-initialization-vector):
/// IGE for encrypted messages and the handshake, CTR for the obfuscated transports.
public enum AES256IGE {
    /// True when the IGE rounds run on AES-NI (x86-64 CPUs with AES); otherwise OpenSSL's portable code.
    public static var usesHardware: Bool { mtp_aes_ige_uses_hardware() == 1 }

    /// Encrypts whole 16-byte blocks. `iv` is 32 bytes (iv1 ‖ iv2).
    public static func encrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8]) throws(MTProtoCryptoError) -> [UInt8] {
        try run(data, key: key, iv: iv, mtp_aes256_ige_encrypt)
    }

    public static func decrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8]) throws(MTProtoCryptoError) -> [UInt8] {
        try run(data, key: key, iv: iv, mtp_aes256_ige_decrypt)
    }

    /// The portable OpenSSL path, whatever the CPU: for tests and the benchmark.
    static func portable(_ data: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool) -> [UInt8] {
        guard !data.isEmpty, key.count == 32, iv.count == 32 else { return [] }
        var output = [UInt8](repeating: 0, count: data.count)
        output.withUnsafeMutableBufferPointer { out in
            mtp_aes256_ige_portable(key, iv, data, out.baseAddress!, data.count, encrypt ? 1 : 0)
        }
        return output
    }

    private static func run(
        _ data: [UInt8], key: [UInt8], iv: [UInt8],
        _ function: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int) -> Void
    ) throws(MTProtoCryptoError) -> [UInt8] {
        guard key.count == 32 else { throw .badKeyLength(expected: 32, actual: key.count) }
        guard iv.count == 32 else { throw .badKeyLength(expected: 32, actual: iv.count) }
        guard !data.isEmpty, data.count % 16 == 0 else { throw .notBlockAligned(length: data.count) }
        var output = [UInt8](repeating: 0, count: data.count)
        key.withUnsafeBufferPointer { keyPointer in
            iv.withUnsafeBufferPointer { ivPointer in
                data.withUnsafeBufferPointer { input in
                    output.withUnsafeMutableBufferPointer { out in
                        function(keyPointer.baseAddress!, ivPointer.baseAddress!, input.baseAddress!, out.baseAddress!, data.count)
                    }
                }
            }
        }
        return output
    }
}

/// A streaming AES-256-CTR key stream (obfuscated2: one per direction, kept for the connection's life).
public final class AES256CTR {
    private let context: OpaquePointer

    public init(key: [UInt8], iv: [UInt8]) throws(MTProtoCryptoError) {
        guard key.count == 32 else { throw .badKeyLength(expected: 32, actual: key.count) }
        guard iv.count == 16 else { throw .badKeyLength(expected: 16, actual: iv.count) }
        guard let context = mtp_aes_ctr_new(key, iv) else { throw .libraryFailure("EVP aes-256-ctr init") }
        self.context = context
    }

    deinit { mtp_aes_ctr_free(context) }

    /// XORs the next bytes of the key stream into `data` in place.
    public func apply(_ data: inout [UInt8]) {
        guard !data.isEmpty else { return }
        data.withUnsafeMutableBufferPointer { buffer in
            _ = mtp_aes_ctr_apply(context, buffer.baseAddress!, buffer.baseAddress!, buffer.count)
        }
    }

    public func apply(_ data: [UInt8]) -> [UInt8] {
        var copy = data
        apply(&copy)
        return copy
    }
}

/// OpenSSL's AES-256-CBC (no padding): the reference for `synccore bench crypto`, and the cipher of the signed
/// config blob that endpoint discovery reads (`SignedConfigBlob`).
public enum AES256CBC {
    public static func encrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8]) throws(MTProtoCryptoError) -> [UInt8] {
        try run(data, key: key, iv: iv, encrypt: true)
    }

    public static func decrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8]) throws(MTProtoCryptoError) -> [UInt8] {
        try run(data, key: key, iv: iv, encrypt: false)
    }

    private static func run(_ data: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool) throws(MTProtoCryptoError) -> [UInt8] {
        guard key.count == 32 else { throw .badKeyLength(expected: 32, actual: key.count) }
        guard iv.count == 16 else { throw .badKeyLength(expected: 16, actual: iv.count) }
        guard !data.isEmpty, data.count % 16 == 0 else { throw .notBlockAligned(length: data.count) }
        var output = [UInt8](repeating: 0, count: data.count)
        let ok = output.withUnsafeMutableBufferPointer { out in
            mtp_aes256_cbc(key, iv, data, out.baseAddress!, data.count, encrypt ? 1 : 0)
        }
        guard ok == 1 else { throw .libraryFailure("EVP aes-256-cbc") }
        return output
    }
}
