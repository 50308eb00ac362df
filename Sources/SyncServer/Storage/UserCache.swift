import Synchronization

/// Committed user rows kept in memory: a send looks up its sender and recipient several times. A row changes only by
/// a profile change (names, username, bio), which makes every holder forget it (`forget`: the writing process after
/// its COMMIT; with PostgreSQL every other process when the change's announcement arrives). Rows read inside a write
/// transaction are not committed yet; they are collected by the batch (`WriteBatch`) and enter the cache only after
/// its COMMIT.
///
/// A reader that read a row before a change and remembers it after the change was forgotten would bring the old row
/// back: so every forgetting moves a generation, a transaction notes the generation it started at, and a row is
/// remembered only if no forgetting happened since.
final class UserCache: Sendable {
    /// Entries at most; the cache starts over when full (a cheap bound for servers with many users).
    static let capacity = 100_000

    private struct Rows {
        var users: [Int64: UserRecord] = [:]
        var generation: UInt64 = 0
    }

    private let rows = Mutex(Rows())

    func user(id: Int64) -> UserRecord? {
        rows.withLock { $0.users[id] }
    }

    /// What a transaction notes before its first read (`remember(_:seenAt:)`).
    var generation: UInt64 {
        rows.withLock { $0.generation }
    }

    /// Keeps `users` unless a row was forgotten since `generation` (nil: rows known to be current, a single
    /// writer's own commit).
    func remember(_ users: [UserRecord], seenAt generation: UInt64? = nil) {
        guard !users.isEmpty else { return }
        rows.withLock { rows in
            if let generation, generation != rows.generation { return }
            if rows.users.count + users.count > Self.capacity { rows.users.removeAll(keepingCapacity: true) }
            for user in users { rows.users[user.id] = user }
        }
    }

    /// Drops changed rows (they are read again from the database when next needed).
    func forget(_ ids: [Int64]) {
        guard !ids.isEmpty else { return }
        rows.withLock { rows in
            rows.generation &+= 1
            for id in ids { rows.users[id] = nil }
        }
    }

    /// Drops every row (announcements of changes may have been missed).
    func clear() {
        rows.withLock { rows in
            rows.generation &+= 1
            rows.users.removeAll()
        }
    }
}
