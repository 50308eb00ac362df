import Logging
import Synchronization

/// Which method a handler serves, set by the dispatcher for the handler's task: the log line of a storage failure
/// names the call that met it.
enum CurrentCall {
    @TaskLocal static var method: String?
}

/// Log lines at a bounded rate per key: during a database outage every call fails, and a line per call (thousands a
/// second) would bury the two lines that say what happened. The first failure of a key is logged at once; later ones
/// within `interval` seconds are counted, and the next line logged says how many were left out.
final class FailureLog: Sendable {
    private struct Entry {
        var last: Double
        var suppressed: Int
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let interval: Double
    private let now: @Sendable () -> Double
    /// Keys remembered at most (hostile method names cannot grow it: the dispatcher names only known methods).
    private static let keys = 1_000

    init(interval: Double = 10, now: @escaping @Sendable () -> Double) {
        self.interval = interval
        self.now = now
    }

    /// Whether a failure of `key` is logged now, and how many were left out before it (nil: leave this one out).
    func admit(_ key: String) -> Int? {
        let time = now()
        return entries.withLock { entries -> Int? in
            if var entry = entries[key] {
                guard time - entry.last >= interval else {
                    entry.suppressed += 1
                    entries[key] = entry
                    return nil
                }
                entries[key] = Entry(last: time, suppressed: 0)
                return entry.suppressed
            }
            if entries.count >= Self.keys { entries.removeAll() }
            entries[key] = Entry(last: time, suppressed: 0)
            return 0
        }
    }
}
