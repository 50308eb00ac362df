import GRDB

/// Contact lists, blocks and username prefixes.
extension SQLiteTransaction {
    static let contactColumns = ContactColumn.list
    static let blockColumns = BlockColumn.list

    func contact(owner: Int64, user: Int64) throws -> ContactRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.contactColumns) FROM contacts WHERE owner = ? AND user_id = ?"),
                         arguments: [owner, user]).map { try $0.record(ContactRecord.self) }
    }

    func contacts(owner: Int64, limit: Int) throws -> [ContactRecord] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.contactColumns) FROM contacts WHERE owner = ? ORDER BY user_id LIMIT ?"),
                         arguments: [owner, limit]).map { try $0.record(ContactRecord.self) }
    }

    func contactCount(owner: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM contacts WHERE owner = ?"), arguments: [owner]) ?? 0
    }

    func mutualContactIDs(owner: Int64, limit: Int) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT mine.user_id FROM contacts mine JOIN contacts theirs ON theirs.owner = mine.user_id AND theirs.user_id = mine.owner
            WHERE mine.owner = ? ORDER BY mine.user_id LIMIT ?
            """), arguments: [owner, limit])
    }

    func contactOwners(of user: Int64, limit: Int) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: "SELECT owner FROM contacts WHERE user_id = ? ORDER BY owner LIMIT ?"),
                           arguments: [user, limit])
    }

    func block(owner: Int64, user: Int64) throws -> BlockRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.blockColumns) FROM blocks WHERE owner = ? AND user_id = ?"),
                         arguments: [owner, user]).map { try $0.record(BlockRecord.self) }
    }

    func blocks(owner: Int64, offset: Int, limit: Int) throws -> [BlockRecord] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.blockColumns) FROM blocks WHERE owner = ? ORDER BY date DESC, user_id DESC LIMIT ? OFFSET ?
            """), arguments: [owner, limit, offset]).map { try $0.record(BlockRecord.self) }
    }

    func blockCount(owner: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM blocks WHERE owner = ?"), arguments: [owner]) ?? 0
    }

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

    func upsert(_ contact: ContactRecord) throws {
        try RawStatement(db, sql: "INSERT OR REPLACE INTO contacts (\(Self.contactColumns)) VALUES (\(ContactColumn.sqliteParameters))")
            .execute { contact.encode(to: &$0) }
    }

    func deleteContact(owner: Int64, user: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM contacts WHERE owner = ? AND user_id = ?").execute(arguments: [owner, user])
    }

    func insert(_ block: BlockRecord) throws {
        try RawStatement(db, sql: "INSERT OR REPLACE INTO blocks (\(Self.blockColumns)) VALUES (\(BlockColumn.sqliteParameters))")
            .execute { block.encode(to: &$0) }
    }

    func deleteBlock(owner: Int64, user: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM blocks WHERE owner = ? AND user_id = ?").execute(arguments: [owner, user])
    }
}
