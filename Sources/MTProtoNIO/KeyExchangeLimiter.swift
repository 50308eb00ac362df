import Synchronization

/// How many auth-key exchanges each peer address may start: a token bucket per address holding `burst` and refilled
/// at `perSecond`. An exchange costs the server an RSA decryption, a Diffie–Hellman exponentiation and a synced write
/// (a few milliseconds in all) and a stored key, so one address must not make them at will. Counted per plain frame
/// (an exchange takes three), which needs no knowledge of where in an exchange a frame falls, and per database lookup
/// of a key the server does not hold in memory (a peer naming random key ids).
public final class KeyExchangeLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    public let burst: Double
    public let perSecond: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Buckets kept at most; full ones (idle peers) are dropped first when there are more.
    static let maximumAddresses = 10_000

    /// `exchangesPerSecond` ≤ 0 turns the limit off.
    public init(burst exchanges: Int, exchangesPerSecond: Double) {
        burst = Double(max(1, exchanges) * 3)
        perSecond = exchangesPerSecond * 3
    }

    /// Takes a token for a plain frame from `address`, or returns false when its bucket is empty.
    public func admitPlainFrame(from address: String, now: Double) -> Bool {
        guard perSecond > 0 else { return true }
        return buckets.withLock { buckets in
            if buckets.count >= Self.maximumAddresses, buckets[address] == nil {
                buckets = buckets.filter { now - $0.value.updated < burst / perSecond }
                guard buckets.count < Self.maximumAddresses else { return false }
            }
            var bucket = buckets[address] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * perSecond)
            bucket.updated = now
            defer { buckets[address] = bucket }
            guard bucket.tokens >= 1 else { return false }
            bucket.tokens -= 1
            return true
        }
    }
}
