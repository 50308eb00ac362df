import CMTProtoCrypto

/// Unsigned big-endian integers as byte arrays: the form RSA and DH values take on the wire (TL `bytes`).
/// Arithmetic that needs speed (modular exponentiation) is OpenSSL's; comparisons are done here.
public enum BigEndianInteger {
    /// base^exponent mod modulus, as `modulus.count` bytes.
    public static func modExp(_ base: [UInt8], _ exponent: [UInt8], _ modulus: [UInt8]) throws(MTProtoCryptoError) -> [UInt8] {
        guard !modulus.isEmpty, modulus.contains(where: { $0 != 0 }) else { throw .outOfRange("zero modulus") }
        var output = [UInt8](repeating: 0, count: modulus.count)
        let ok = output.withUnsafeMutableBufferPointer { out in
            mtp_mod_exp(base, base.count, exponent, exponent.count, modulus, modulus.count, out.baseAddress!)
        }
        guard ok == 1 else { throw .libraryFailure("BN_mod_exp") }
        return output
    }

    /// Drops leading zero bytes.
    public static func trimmed(_ value: [UInt8]) -> [UInt8] {
        Array(value.drop { $0 == 0 })
    }

    /// Numeric comparison, ignoring leading zeros.
    public static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        let a = trimmed(lhs)
        let b = trimmed(rhs)
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return 0
    }

    /// lhs − rhs for lhs ≥ rhs, as `lhs.count` bytes.
    public static func subtract(_ lhs: [UInt8], _ rhs: [UInt8]) -> [UInt8] {
        var result = lhs
        var borrow = 0
        var j = rhs.count - 1
        for i in stride(from: lhs.count - 1, through: 0, by: -1) {
            let subtrahend = (j >= 0 ? Int(rhs[j]) : 0) + borrow
            var digit = Int(lhs[i]) - subtrahend
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            result[i] = UInt8(digit)
            j -= 1
        }
        return result
    }

    /// 2^exponent as big-endian bytes.
    public static func powerOfTwo(_ exponent: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: exponent / 8 + 1)
        bytes[0] = 1 << UInt8(exponent % 8)
        return bytes
    }

    public static func fromUInt64(_ value: UInt64) -> [UInt8] {
        trimmed((0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) })
    }

    /// The value of up to 8 big-endian bytes; nil if it does not fit.
    public static func toUInt64(_ bytes: [UInt8]) -> UInt64? {
        let value = trimmed(bytes)
        guard value.count <= 8 else { return nil }
        return value.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
