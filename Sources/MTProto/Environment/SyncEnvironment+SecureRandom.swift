import CMTProtoCrypto

/// The production random source of the MTProto cores: OpenSSL's CSPRNG (`RAND_bytes`, a per-thread DRBG seeded
/// by the kernel). `SystemRandomNumberGenerator` makes one getrandom(2) system call per 8 bytes, which profiling
/// showed to be a quarter of the server's CPU time under load (message padding is 12–1,024 random bytes per packet).
///
/// Falls back to `SystemRandomNumberGenerator` if OpenSSL reports that its generator is not seeded, so a value is
/// always cryptographically random.
public struct SecureRandom: RandomNumberGenerator, Sendable {
    /// Bytes drawn from OpenSSL ahead of use; refilled when `next()` has used them up.
    private var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    private var used = 8

    public init() {}

    public mutating func next() -> UInt64 {
        if used == 8 {
            let filled = withUnsafeMutableBytes(of: &buffer) { raw in
                raw.bindMemory(to: UInt8.self).baseAddress.map { mtp_random_bytes($0, raw.count) } ?? 0
            }
            if filled != 1 {
                var system = SystemRandomNumberGenerator()
                return system.next()
            }
            used = 0
        }
        defer { used += 1 }
        return withUnsafeBytes(of: buffer) { $0.load(fromByteOffset: used * 8, as: UInt64.self) }
    }
}

/// Random byte strings from any generator, 8 bytes per `next()` call (the per-byte `UInt8.random(in:)` asks the
/// generator once per byte).
public enum RandomBytes {
    public static func make<R: RandomNumberGenerator>(_ count: Int, using rng: inout R) -> [UInt8] {
        var bytes: [UInt8] = []
        append(count, to: &bytes, using: &rng)
        return bytes
    }

    public static func append<R: RandomNumberGenerator>(_ count: Int, to bytes: inout [UInt8], using rng: inout R) {
        guard count > 0 else { return }
        bytes.reserveCapacity(bytes.count + count)
        var remaining = count
        while remaining > 0 {
            let word = rng.next()
            withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0.prefix(remaining)) }
            remaining -= 8
        }
    }
}
