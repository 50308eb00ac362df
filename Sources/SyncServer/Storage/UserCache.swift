import Synchronization

/// Committed user rows kept in memory: a send looks up its sender and recipient several times, and rows of `users`
/// are never updated or deleted (only inserted), so a committed row stays true. Rows read inside a write transaction
/// are not committed yet; they are collected by the batch (`WriteBatch`) and enter the cache only after its COMMIT.
final class UserCache: Sendable {
    /// Entries at most; the cache starts over when full (a cheap bound for servers with many users).
    static let capacity = 100_000

    private let rows = Mutex<[Int64: UserRecord]>([:])

    func user(id: Int64) -> UserRecord? {
        rows.withLock { $0[id] }
    }

    func remember(_ users: [UserRecord]) {
        guard !users.isEmpty else { return }
        rows.withLock { rows in
            if rows.count + users.count > Self.capacity { rows.removeAll(keepingCapacity: true) }
            for user in users { rows[user.id] = user }
        }
    }
}
