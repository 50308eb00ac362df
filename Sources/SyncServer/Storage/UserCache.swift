import Synchronization

/// Committed user rows kept in memory: a send looks up its sender and recipient several times, and rows of `users`
/// are never updated or deleted (only inserted), so a committed row stays true. Rows read inside a write transaction
/// are not committed yet; they are collected by the batch (`Learned`) and enter the cache only after its COMMIT.
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

    /// Users a write batch read; handed to the cache once the batch committed. Users inserted in the batch are left
    /// out (the job that inserted one may still roll back its savepoint); a later read caches them.
    final class Learned: Sendable {
        private let state = Mutex<(read: [UserRecord], inserted: Set<Int64>)>(([], []))

        func add(_ user: UserRecord) { state.withLock { $0.read.append(user) } }
        func inserted(_ id: Int64) { state.withLock { _ = $0.inserted.insert(id) } }

        func commit(to cache: UserCache) {
            let (read, inserted) = state.withLock { $0 }
            cache.remember(read.filter { !inserted.contains($0.id) })
        }
    }
}
