/// Diffie-Hellman as the MTProto handshake does it (core.telegram.org/mtproto/auth_key, "DH exchange
/// initiation"), with Telegram's well-known 2048-bit safe prime and g = 3 — the only group many clients accept.
public enum DiffieHellman {
    public static let generator: Int32 = 3

    /// Telegram's 2048-bit safe prime, big-endian.
    public static let prime: [UInt8] = bytesFromHexUnchecked(
        "c71caeb9c6b1c9048e6c522f70f13f73980d40238e3e21c14934d037563d930f48198a0aa7c14058229493d22530f4dbfa336f6e0ac925139543aed44cce7c3720fd51f69458705ac68cd4fe6b6b13abdc9746512969328454f18faf8c595f642477fe96bb2a941d5bcd1d4ac8cc49880708fa9b378e3c4f3a9060bee67cf9a4a4a695811051907e162753b56b0f6b410dba74d8a84b2a14b3144e0ef1284754fd17ed950d5965b4b9dd46582db1178d169c6bc465b0d6ff9ca3928fef5b9ae4e418fc15e83ebea0f87fa9ff5eed70050ded2849f47bf959d956850ce929851f0d8115f635b105ee2e4e15d04b2454bf6f4fadf034b10403119cd8e3b92fcc5b"
    )

    /// g^exponent mod p (256 bytes).
    public static func publicValue(exponent: [UInt8]) throws(MTProtoCryptoError) -> [UInt8] {
        try BigEndianInteger.modExp([UInt8(generator)], exponent, prime)
    }

    /// peer^exponent mod p: the auth key (256 bytes, leading zeros kept).
    public static func sharedSecret(peerValue: [UInt8], exponent: [UInt8]) throws(MTProtoCryptoError) -> [UInt8] {
        try BigEndianInteger.modExp(peerValue, exponent, prime)
    }

    /// The spec's checks on g_a and g_b: 1 < value < p − 1 and 2^(2048−64) ≤ value ≤ p − 2^(2048−64).
    public static func checkPublicValue(_ value: [UInt8]) throws(MTProtoCryptoError) {
        let one: [UInt8] = [1]
        let pMinusOne = BigEndianInteger.subtract(prime, one)
        guard BigEndianInteger.compare(value, one) > 0, BigEndianInteger.compare(value, pMinusOne) < 0 else {
            throw .outOfRange("DH value not in (1, p - 1)")
        }
        let bound = BigEndianInteger.powerOfTwo(2048 - 64)
        guard BigEndianInteger.compare(value, bound) >= 0,
              BigEndianInteger.compare(value, BigEndianInteger.subtract(prime, bound)) <= 0
        else { throw .outOfRange("DH value not in [2^1984, p - 2^1984]") }
    }
}

/// Hex for constants written in the source; the caller guarantees the text is valid.
func bytesFromHexUnchecked(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
    while let high = iterator.next(), let low = iterator.next() { out.append(nibble(high) << 4 | nibble(low)) }
    return out
}
