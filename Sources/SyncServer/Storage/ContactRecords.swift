/// One entry of a user's contact list (`contacts.addContact`, `contacts.importContacts`): whom, the name the owner
/// saved them under, and the phone the owner knows them by (empty when added by id without one).
public struct ContactRecord: Sendable, Equatable {
    public var owner: Int64
    public var userID: Int64
    public var firstName: String
    public var lastName: String
    public var phone: String
    public var date: Int32

    public init(owner: Int64, userID: Int64, firstName: String, lastName: String = "", phone: String = "", date: Int32) {
        self.owner = owner
        self.userID = userID
        self.firstName = firstName
        self.lastName = lastName
        self.phone = phone
        self.date = date
    }
}

/// A user the owner blocked (`contacts.block`): their private messages are not delivered to the owner.
public struct BlockRecord: Sendable, Equatable {
    public var owner: Int64
    public var userID: Int64
    public var date: Int32

    public init(owner: Int64, userID: Int64, date: Int32) {
        self.owner = owner
        self.userID = userID
        self.date = date
    }
}

/// Contact lists, blocks, and the username lookups of `contacts.search`.
public protocol ContactStorageReader {
    func contact(owner: Int64, user: Int64) throws -> ContactRecord?
    /// The owner's contacts by user id, at most `limit`.
    func contacts(owner: Int64, limit: Int) throws -> [ContactRecord]
    func contactCount(owner: Int64) throws -> Int
    /// The owner's contacts who have the owner among theirs too, by id, at most `limit`.
    func mutualContactIDs(owner: Int64, limit: Int) throws -> [Int64]
    /// Who has `user` among their contacts, by id, at most `limit`.
    func contactOwners(of user: Int64, limit: Int) throws -> [Int64]
    func block(owner: Int64, user: Int64) throws -> BlockRecord?
    /// The owner's blocks, newest first, after skipping `offset`.
    func blocks(owner: Int64, offset: Int, limit: Int) throws -> [BlockRecord]
    func blockCount(owner: Int64) throws -> Int
    /// Users whose username starts with `prefix` (ASCII, any case), by username, at most `limit`.
    func users(usernamePrefix prefix: String, limit: Int) throws -> [UserRecord]
    /// Channels whose username starts with `prefix` (ASCII, any case), by username, at most `limit`.
    func channels(usernamePrefix prefix: String, limit: Int) throws -> [ChannelRecord]
}

public protocol ContactStorageWriter {
    func upsert(_ contact: ContactRecord) throws
    func deleteContact(owner: Int64, user: Int64) throws
    func insert(_ block: BlockRecord) throws
    func deleteBlock(owner: Int64, user: Int64) throws
}

/// Usernames that start with a prefix, as each backend's index finds them. Usernames are ASCII letters, digits and `_`
/// (`InputLimits.username`), so a prefix is too (`ContactsRPC.Search` looks up nothing else).
enum UsernamePrefix {
    /// SQLite's range on an index compared without case: every username that starts with `prefix` sorts below
    /// `prefix + "~"`.
    static func bounds(_ prefix: String) -> (lower: String, upper: String) {
        let lower = prefix.lowercased()
        return (lower, lower + "~")
    }

    /// PostgreSQL's LIKE pattern on `lower(username)` (an index with `text_pattern_ops` serves it whatever the
    /// database's collation): `_` and `%` are escaped, as LIKE would take them for wildcards.
    static func likePattern(_ prefix: String) -> String {
        var pattern = ""
        for character in prefix.lowercased() {
            if character == "_" || character == "%" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }
}
