import PostgresNIO

/// Username prefixes: PostgreSQL reads them with `LIKE` on its `lower(username)` index.
extension PostgresTransaction {
    enum UsersByUsernamePrefix: PostgresSQL {
        static let sql = "SELECT \(userColumns) FROM users WHERE lower(username) LIKE $1 ORDER BY lower(username) LIMIT $2"
    }
    enum ChannelsByUsernamePrefix: PostgresSQL {
        static let sql = "SELECT \(channelColumns) FROM channels WHERE lower(username) LIKE $1 ORDER BY lower(username) LIMIT $2"
    }

    func users(usernamePrefix prefix: String, limit: Int) throws -> [UserRecord] {
        try query(UsersByUsernamePrefix.self, UsernamePrefix.likePattern(prefix), Int64(limit)).map { try $0.record(UserRecord.self) }
    }

    func channels(usernamePrefix prefix: String, limit: Int) throws -> [ChannelRecord] {
        try query(ChannelsByUsernamePrefix.self, UsernamePrefix.likePattern(prefix), Int64(limit)).map { try $0.record(ChannelRecord.self) }
    }
}
