import PostgresNIO

/// Contact lists, blocks and username prefixes.
extension PostgresTransaction {
    static let contactColumns = ContactColumn.list
    static let blockColumns = BlockColumn.list

    enum ContactOfOwner: PostgresSQL {
        static let sql = "SELECT \(contactColumns) FROM contacts WHERE owner = $1 AND user_id = $2"
    }
    enum ContactsOfOwner: PostgresSQL {
        static let sql = "SELECT \(contactColumns) FROM contacts WHERE owner = $1 ORDER BY user_id LIMIT $2"
    }
    enum ContactCount: PostgresSQL { static let sql = "SELECT COUNT(*) FROM contacts WHERE owner = $1" }
    enum MutualContactIDs: PostgresSQL {
        static let sql = """
            SELECT mine.user_id FROM contacts mine JOIN contacts theirs ON theirs.owner = mine.user_id AND theirs.user_id = mine.owner
            WHERE mine.owner = $1 ORDER BY mine.user_id LIMIT $2
            """
    }
    enum ContactOwners: PostgresSQL { static let sql = "SELECT owner FROM contacts WHERE user_id = $1 ORDER BY owner LIMIT $2" }
    enum BlockOfOwner: PostgresSQL { static let sql = "SELECT \(blockColumns) FROM blocks WHERE owner = $1 AND user_id = $2" }
    enum BlocksOfOwner: PostgresSQL {
        static let sql = "SELECT \(blockColumns) FROM blocks WHERE owner = $1 ORDER BY date DESC, user_id DESC LIMIT $2 OFFSET $3"
    }
    enum BlockCount: PostgresSQL { static let sql = "SELECT COUNT(*) FROM blocks WHERE owner = $1" }
    enum UsersByUsernamePrefix: PostgresSQL {
        static let sql = "SELECT \(userColumns) FROM users WHERE lower(username) LIKE $1 ORDER BY lower(username) LIMIT $2"
    }
    enum ChannelsByUsernamePrefix: PostgresSQL {
        static let sql = "SELECT \(channelColumns) FROM channels WHERE lower(username) LIKE $1 ORDER BY lower(username) LIMIT $2"
    }
    enum UpsertContact: PostgresSQL {
        static let sql = """
            INSERT INTO contacts (\(contactColumns)) VALUES (\(ContactColumn.postgresParameters()))
            ON CONFLICT (owner, user_id) DO UPDATE SET first_name = excluded.first_name, last_name = excluded.last_name,
                phone = excluded.phone, date = excluded.date
            """
    }
    enum DeleteContact: PostgresSQL { static let sql = "DELETE FROM contacts WHERE owner = $1 AND user_id = $2" }
    enum InsertBlock: PostgresSQL {
        static let sql = """
            INSERT INTO blocks (\(blockColumns)) VALUES (\(BlockColumn.postgresParameters()))
            ON CONFLICT (owner, user_id) DO UPDATE SET date = excluded.date
            """
    }
    enum DeleteBlock: PostgresSQL { static let sql = "DELETE FROM blocks WHERE owner = $1 AND user_id = $2" }

    func contact(owner: Int64, user: Int64) throws -> ContactRecord? {
        try query(ContactOfOwner.self, owner, user).first.map { try $0.record(ContactRecord.self) }
    }

    func contacts(owner: Int64, limit: Int) throws -> [ContactRecord] {
        try query(ContactsOfOwner.self, owner, Int64(limit)).map { try $0.record(ContactRecord.self) }
    }

    func contactCount(owner: Int64) throws -> Int {
        Int(try query(ContactCount.self, owner).first?.decode(Int64.self) ?? 0)
    }

    func mutualContactIDs(owner: Int64, limit: Int) throws -> [Int64] {
        try query(MutualContactIDs.self, owner, Int64(limit)).map { try $0.decode(Int64.self) }
    }

    func contactOwners(of user: Int64, limit: Int) throws -> [Int64] {
        try query(ContactOwners.self, user, Int64(limit)).map { try $0.decode(Int64.self) }
    }

    func block(owner: Int64, user: Int64) throws -> BlockRecord? {
        try query(BlockOfOwner.self, owner, user).first.map { try $0.record(BlockRecord.self) }
    }

    func blocks(owner: Int64, offset: Int, limit: Int) throws -> [BlockRecord] {
        try query(BlocksOfOwner.self, owner, Int64(limit), Int64(offset)).map { try $0.record(BlockRecord.self) }
    }

    func blockCount(owner: Int64) throws -> Int {
        Int(try query(BlockCount.self, owner).first?.decode(Int64.self) ?? 0)
    }

    func users(usernamePrefix prefix: String, limit: Int) throws -> [UserRecord] {
        try query(UsersByUsernamePrefix.self, UsernamePrefix.likePattern(prefix), Int64(limit)).map { try $0.record(UserRecord.self) }
    }

    func channels(usernamePrefix prefix: String, limit: Int) throws -> [ChannelRecord] {
        try query(ChannelsByUsernamePrefix.self, UsernamePrefix.likePattern(prefix), Int64(limit)).map { try $0.record(ChannelRecord.self) }
    }

    func upsert(_ contact: ContactRecord) throws {
        try change(UpsertContact.self, RecordParameters(contact))
    }

    func deleteContact(owner: Int64, user: Int64) throws {
        try change(DeleteContact.self, owner, user)
    }

    func insert(_ block: BlockRecord) throws {
        try change(InsertBlock.self, RecordParameters(block))
    }

    func deleteBlock(owner: Int64, user: Int64) throws {
        try change(DeleteBlock.self, owner, user)
    }
}
