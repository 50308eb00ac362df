#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pts a write hands out, counted for `synccore_pts_assigned_total` only once the write committed: PostgreSQL
/// runs a write's body again after it lost a race, and a write whose commit failed assigned nothing (counted as they
/// were logged, an outage once showed 156 assigned against 82 committed). The body runs synchronously on one storage
/// thread, so the boxes find the tally of the write they serve in a thread-specific slot.
final class WriteTally: @unchecked Sendable {   // touched by one thread at a time: the body's, then the caller's after it
    private(set) var user = 0
    private(set) var channel = 0

    /// Runs `body` with this tally as the current thread's, counting from zero (a retried body counts once).
    func counting<T>(_ body: () throws -> T) rethrows -> T {
        (user, channel) = (0, 0)
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.key, previous) }
        return try body()
    }

    /// A box handed out `count` pts in the write running on this thread (nothing outside a counted write).
    static func assigned(_ count: Int32, channel: Bool) {
        guard let slot = pthread_getspecific(key) else { return }
        let tally = Unmanaged<WriteTally>.fromOpaque(slot).takeUnretainedValue()
        if channel { tally.channel += Int(count) } else { tally.user += Int(count) }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
