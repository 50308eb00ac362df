/// Users' statuses (online until, or offline since), written once for both backends: in the database, so that every
/// process of a data center shows a user's status however the user's connections are spread over the processes.
/// `origin` names the process that set a status last (`CommitFeed.origin`; 0 with SQLite's one process): a process
/// whose last session of a user closes sets the user offline only when it was the one that last saw the user, not
/// over another process's fresher status.
enum PresenceSQL {
    enum Status: SQLText {
        static let text = "SELECT online, until, origin FROM user_statuses WHERE user_id = ?"
    }
    enum Since: SQLText {
        static let text = "SELECT user_id, online, until, origin FROM user_statuses WHERE until > ? ORDER BY until DESC LIMIT ?"
    }
    enum Upsert: SQLText {
        static let text = """
            INSERT INTO user_statuses (user_id, online, until, origin) VALUES (?, ?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE SET online = excluded.online, until = excluded.until, origin = excluded.origin
            """
    }
}

/// A user's status as stored: online until `until`, or offline since `until`.
public struct StoredUserStatus: Sendable, Equatable {
    public var online: Bool
    public var until: Int32
    /// The process that set it.
    public var origin: Int64

    public init(online: Bool, until: Int32, origin: Int64) {
        self.online = online
        self.until = until
        self.origin = origin
    }
}

public protocol PresenceStorageReader {
    func userStatus(user: Int64) throws -> StoredUserStatus?
    /// Statuses that changed after `since` or are online past it, the most recent first, at most `limit`.
    func userStatuses(since: Int32, limit: Int) throws -> [(user: Int64, status: StoredUserStatus)]
}

public protocol PresenceStorageWriter {
    /// Stores `status` (a backend shared by several processes also announces it to them).
    func setUserStatus(_ status: StoredUserStatus, user: Int64) throws
}

extension SQLStatements {
    func userStatus(user: Int64) throws -> StoredUserStatus? {
        try row(PresenceSQL.Status.self, user) { cells in
            StoredUserStatus(online: try cells.bool(at: 0), until: Int32(truncatingIfNeeded: try cells.int64(at: 1)), origin: try cells.int64(at: 2))
        }
    }

    func userStatuses(since: Int32, limit: Int) throws -> [(user: Int64, status: StoredUserStatus)] {
        try rows(PresenceSQL.Since.self, since, limit) { cells in
            (try cells.int64(at: 0), StoredUserStatus(online: try cells.bool(at: 1), until: Int32(truncatingIfNeeded: try cells.int64(at: 2)),
                                                      origin: try cells.int64(at: 3)))
        }
    }

    func writeUserStatus(_ status: StoredUserStatus, user: Int64) throws {
        try execute(PresenceSQL.Upsert.self, user, status.online, status.until, status.origin)
    }

    func setUserStatus(_ status: StoredUserStatus, user: Int64) throws {
        try writeUserStatus(status, user: user)
    }
}
