import GRDB

/// Username prefixes: SQLite reads them as a range of its username index.
extension SQLiteTransaction {
    func users(usernamePrefix prefix: String, limit: Int) throws -> [UserRecord] {
        let (lower, upper) = UsernamePrefix.bounds(prefix)
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.userColumns) FROM users WHERE username >= ? AND username < ? ORDER BY username LIMIT ?
            """), arguments: [lower, upper, limit]).map { try $0.record(UserRecord.self) }
    }

    func channels(usernamePrefix prefix: String, limit: Int) throws -> [ChannelRecord] {
        let (lower, upper) = UsernamePrefix.bounds(prefix)
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.channelColumns) FROM channels WHERE username >= ? AND username < ? ORDER BY username LIMIT ?
            """), arguments: [lower, upper, limit]).map { try $0.record(ChannelRecord.self) }
    }
}
