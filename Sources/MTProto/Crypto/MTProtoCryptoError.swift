/// Why a cryptographic operation refused its input. Raised for malformed peer data; never a trap.
public enum MTProtoCryptoError: Error, Equatable, Sendable {
    /// The data is not a whole number of 16-byte AES blocks (or is empty where data is required).
    case notBlockAligned(length: Int)
    /// A key, IV or nonce of the wrong size.
    case badKeyLength(expected: Int, actual: Int)
    /// An RSA block that decrypts to neither the RSA_PAD nor the old (SHA-1) layout.
    case rsaDecryptionFailed
    /// A value that must be a big-endian integer in a range is outside it (DH g_a/g_b, RSA input ≥ n).
    case outOfRange(String)
    /// pq is not a product of two primes below 2^32.
    case badPQ
    /// OpenSSL reported a failure (allocation, key generation).
    case libraryFailure(String)
}
