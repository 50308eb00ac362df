/// Contact lists and blocks, written once for both backends (`SQLText`).
enum ContactSQL {
    static let contactColumns = ContactColumn.list
    static let blockColumns = BlockColumn.list

    enum Contact: SQLText { static let text = "SELECT \(contactColumns) FROM contacts WHERE owner = ? AND user_id = ?" }
    enum Contacts: SQLText { static let text = "SELECT \(contactColumns) FROM contacts WHERE owner = ? ORDER BY user_id LIMIT ?" }
    enum ContactCount: SQLText { static let text = "SELECT COUNT(*) FROM contacts WHERE owner = ?" }
    enum MutualContactIDs: SQLText {
        static let text = """
            SELECT mine.user_id FROM contacts mine JOIN contacts theirs ON theirs.owner = mine.user_id AND theirs.user_id = mine.owner
            WHERE mine.owner = ? ORDER BY mine.user_id LIMIT ?
            """
    }
    enum ContactOwners: SQLText { static let text = "SELECT owner FROM contacts WHERE user_id = ? ORDER BY owner LIMIT ?" }
    enum UpsertContact: SQLText { static let text = ContactColumn.upsert(into: "contacts", key: [.owner, .userID]) }
    enum DeleteContact: SQLText { static let text = "DELETE FROM contacts WHERE owner = ? AND user_id = ?" }

    enum Block: SQLText { static let text = "SELECT \(blockColumns) FROM blocks WHERE owner = ? AND user_id = ?" }
    enum Blocks: SQLText {
        static let text = "SELECT \(blockColumns) FROM blocks WHERE owner = ? ORDER BY date DESC, user_id DESC LIMIT ? OFFSET ?"
    }
    enum BlockCount: SQLText { static let text = "SELECT COUNT(*) FROM blocks WHERE owner = ?" }
    enum UpsertBlock: SQLText { static let text = BlockColumn.upsert(into: "blocks", key: [.owner, .userID]) }
    enum DeleteBlock: SQLText { static let text = "DELETE FROM blocks WHERE owner = ? AND user_id = ?" }
}

extension SQLStatements {
    func contact(owner: Int64, user: Int64) throws -> ContactRecord? {
        try row(ContactSQL.Contact.self, owner, user) { try $0.record(ContactRecord.self) }
    }

    func contacts(owner: Int64, limit: Int) throws -> [ContactRecord] {
        try rows(ContactSQL.Contacts.self, owner, limit) { try $0.record(ContactRecord.self) }
    }

    func contactCount(owner: Int64) throws -> Int { Int(try integer(ContactSQL.ContactCount.self, owner)) }

    func mutualContactIDs(owner: Int64, limit: Int) throws -> [Int64] { try integers(ContactSQL.MutualContactIDs.self, owner, limit) }

    func contactOwners(of user: Int64, limit: Int) throws -> [Int64] { try integers(ContactSQL.ContactOwners.self, user, limit) }

    func block(owner: Int64, user: Int64) throws -> BlockRecord? {
        try row(ContactSQL.Block.self, owner, user) { try $0.record(BlockRecord.self) }
    }

    func blocks(owner: Int64, offset: Int, limit: Int) throws -> [BlockRecord] {
        try rows(ContactSQL.Blocks.self, owner, limit, offset) { try $0.record(BlockRecord.self) }
    }

    func blockCount(owner: Int64) throws -> Int { Int(try integer(ContactSQL.BlockCount.self, owner)) }

    func upsert(_ contact: ContactRecord) throws { try execute(ContactSQL.UpsertContact.self, RecordParameters(contact)) }

    func deleteContact(owner: Int64, user: Int64) throws { try execute(ContactSQL.DeleteContact.self, owner, user) }

    func insert(_ block: BlockRecord) throws { try execute(ContactSQL.UpsertBlock.self, RecordParameters(block)) }

    func deleteBlock(owner: Int64, user: Int64) throws { try execute(ContactSQL.DeleteBlock.self, owner, user) }
}
