import Synchronization

/// The box states this process last committed, so that a write batch can use them without reading and locking the
/// rows first (`PostgresTransaction.state(user:)`): a batch whose writes only use cached boxes needs no statement
/// before its rows, and its rows then go out as one statement outside any explicit transaction, one round trip
/// instead of four (BEGIN, locks, rows, COMMIT).
///
/// A cached state is an assumption, never trusted blindly: the statement that writes the batch's rows first locks
/// every assumed box row, in id order, and checks that it still holds exactly the cached values; if any changed (another
/// process wrote the box, even without logging an event), the statement fails as a serialization failure
/// (`synccore_expect_states`, SQLSTATE 40001) before writing anything, and the batch runs again reading the rows.
///
/// What another process announces having written (`CommitAnnouncement`) is forgotten, and a box others write is not
/// cached again for `sharedFor`: boxes written from several processes at once (two users chatting across processes)
/// are read under lock as before, instead of failing their assumption batch after batch.
final class BoxStateCache: Sendable {
    /// Entries at most; the cache starts over when full.
    static let capacity = 100_000
    static let sharedFor = 1.0

    private struct Entries {
        var states: [Int64: UserState] = [:]
        /// Boxes another process wrote, until when they are not cached.
        var shared: [Int64: Double] = [:]
    }

    private let entries = Mutex(Entries())
    /// Monotonic seconds (`SyncEnvironment.uptime`).
    private let now: @Sendable () -> Double

    init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    func state(of user: Int64) -> UserState? {
        entries.withLock { $0.states[user] }
    }

    /// States as a batch committed them (every box it locked or assumed).
    func remember(_ states: [Int64: UserState]) {
        guard !states.isEmpty else { return }
        let now = now()
        entries.withLock { entries in
            if entries.states.count + states.count > Self.capacity { entries.states.removeAll(keepingCapacity: true) }
            for (user, state) in states {
                if let until = entries.shared[user] {
                    guard until <= now else { continue }
                    entries.shared[user] = nil
                }
                entries.states[user] = state
            }
        }
    }

    /// A batch that used these boxes failed: what it assumed may be wrong.
    func forget(_ users: some Sequence<Int64>) {
        entries.withLock { entries in
            for user in users { entries.states[user] = nil }
        }
    }

    /// Another process committed events of these boxes.
    func othersWrote(_ users: [Int64]) {
        guard !users.isEmpty else { return }
        let until = now() + Self.sharedFor
        entries.withLock { entries in
            if entries.shared.count + users.count > Self.capacity { entries.shared.removeAll(keepingCapacity: true) }
            for user in users {
                entries.states[user] = nil
                entries.shared[user] = until
            }
        }
    }

    /// Announcements may have been missed (`CommitNotice.resynchronize`): nothing cached can be vouched for.
    func clear() {
        entries.withLock { $0.states.removeAll() }
    }
}
