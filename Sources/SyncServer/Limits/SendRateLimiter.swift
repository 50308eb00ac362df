import MTProto
import Synchronization

/// The per-user send rate behind `FLOOD_WAIT_X` (core.telegram.org/api/errors#420-flood): a token bucket per user
/// holding up to `burst` sends and refilled at `perSecond`; a send that finds it empty is refused with the whole
/// seconds until a token is back. Sans-I/O: the caller passes a monotonic time in seconds.
final class SendRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let perSecond: Double
    let burst: Double
    private let buckets = Mutex<[Int64: Bucket]>([:])

    /// `perSecond` ≤ 0 turns the limit off.
    init(perSecond: Double, burst: Double? = nil) {
        self.perSecond = perSecond
        self.burst = max(1, burst ?? perSecond)
    }

    /// `admit` as a yes or no, for limits that skip work instead of refusing the call.
    func admits(user: Int64, now: Double) -> Bool {
        do {
            try admit(user: user, now: now)
            return true
        } catch {
            return false
        }
    }

    func admit(user: Int64, now: Double) throws(RPCError) {
        guard perSecond > 0 else { return }
        let wait: Double? = buckets.withLock { buckets in
            var bucket = buckets[user] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * perSecond)
            bucket.updated = now
            defer { buckets[user] = bucket }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / perSecond }
            bucket.tokens -= 1
            return nil
        }
        if let wait {
            let seconds = max(1, Int(wait.rounded(.up)))
            throw RPCError(code: 420, message: "FLOOD_WAIT_\(seconds)")
        }
    }
}
