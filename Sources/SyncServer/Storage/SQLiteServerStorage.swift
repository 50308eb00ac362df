import Foundation
import GRDB

/// The embedded default backend: one SQLite file in the data directory, WAL mode (readers never wait for the
/// writer), `synchronous = FULL` because a committed write is acknowledged to clients and must survive power loss
/// as well as a `kill -9`. Tables are WITHOUT ROWID and clustered on the keys they are read by.
public final class SQLiteServerStorage: ServerStorage {
    private let pool: DatabasePool
    private let commits: GroupCommit
    private let users = UserCache()

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Group commit runs each write in a savepoint; their statement journals stay in memory instead of a
            // temporary file written page by page (profiling showed ~5 pwrite calls per send without this).
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try pool.write { db in try SQLiteServerSchema.migrate(db) }
            commits = GroupCommit(pool: pool, users: users)
        } catch let error as ServerStorageError {
            throw error
        } catch {
            throw ServerStorageError.cannotOpen(path: path, reason: "\(error)")
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T {
        try await pool.read { [users] db in try body(SQLiteTransaction(db: db, users: users, learned: nil)) }
    }

    /// Concurrent writes share commits (`GroupCommit`); each returns after the commit that made it durable.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T {
        try await commits.write(body)
    }
}

/// One transaction's view of the SQLite backend. Rows are read by column index from explicit column lists
/// (`…Columns`): looking columns up by name cost a few percent of the server's time under load (GRDB compares names
/// case-insensitively).
struct SQLiteTransaction: StorageWriter {
    let db: Database
    /// Committed users; nil where no cache is wanted.
    var users: UserCache? = nil
    /// In a write batch: where users read from the database go until the batch commits (nil: straight to the cache,
    /// for read transactions, which see only committed rows).
    var learned: UserCache.Learned? = nil

    // MARK: users and authorizations

    func user(id: Int64) throws -> UserRecord? {
        if let cached = users?.user(id: id) { return cached }
        let user = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.userColumns) FROM users WHERE id = ?"), arguments: [id])
            .map(Self.user(from:))
        if let user, let users {
            if let learned { learned.add(user) } else { users.remember([user]) }
        }
        return user
    }

    func user(phone: String) throws -> UserRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.userColumns) FROM users WHERE phone = ?"), arguments: [phone]).map(Self.user(from:))
    }

    func user(username: String) throws -> UserRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.userColumns) FROM users WHERE username = ?"), arguments: [username]).map(Self.user(from:))
    }

    func maxUserID() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM users") ?? 0
    }

    func insert(_ user: UserRecord) throws {
        learned?.inserted(user.id)
        try db.execute(sql: """
            INSERT INTO users (id, access_hash, phone, first_name, last_name, username, home_dc, bot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [user.id, user.accessHash, user.phone, user.firstName, user.lastName, user.username, user.homeDC,
                             user.isBot])
    }

    func userID(authKeyID: UInt64) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT user_id FROM authorizations WHERE auth_key_id = ?"),
                           arguments: [Int64(bitPattern: authKeyID)])
    }

    func bind(authKeyID: UInt64, to user: Int64?) throws {
        if let user {
            try db.execute(sql: "INSERT OR REPLACE INTO authorizations (auth_key_id, user_id) VALUES (?, ?)",
                           arguments: [Int64(bitPattern: authKeyID), user])
        } else {
            try db.execute(sql: "DELETE FROM authorizations WHERE auth_key_id = ?", arguments: [Int64(bitPattern: authKeyID)])
        }
    }

    static let userColumns = "id, access_hash, phone, first_name, last_name, username, home_dc, bot"

    static func user(from row: Row) -> UserRecord {
        UserRecord(id: row[0], accessHash: row[1], phone: row[2], firstName: row[3], lastName: row[4], username: row[5],
                   homeDC: row[6], isBot: row[7])
    }

    // MARK: box state and update log

    func state(user: Int64) throws -> UserState {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT pts, qts, seq, date, next_message_id FROM user_states WHERE user_id = ?"), arguments: [user])
        else { return UserState() }
        return UserState(pts: row[0], qts: row[1], seq: row[2], date: row[3], nextMessageID: row[4])
    }

    func setState(_ state: UserState, user: Int64) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO user_states (user_id, pts, qts, seq, date, next_message_id) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [user, state.pts, state.qts, state.seq, state.date, state.nextMessageID])
    }

    func events(user: Int64, afterPts: Int32, limit: Int) throws -> [StoredEvent] {
        try Self.events(db.cachedStatement(sql: """
            SELECT pts, pts_count, date, body FROM user_events WHERE user_id = ? AND pts > ? ORDER BY pts LIMIT ?
            """), arguments: [user, afterPts, limit])
    }

    /// Rows of `user_events` or `channel_events` selected as (pts, pts_count, date, body). Read through a cursor by
    /// column index, the body copied once: differences read up to 100,000 of these per call.
    static func events(_ statement: Statement, arguments: StatementArguments) throws -> [StoredEvent] {
        var events: [StoredEvent] = []
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() {
            let body = try row.withUnsafeData(atIndex: 3) { data in data.map { [UInt8]($0) } ?? [] }
            events.append(StoredEvent(pts: row[0], ptsCount: row[1], date: row[2], update: body))
        }
        return events
    }

    func append(_ event: StoredEvent, user: Int64) throws {
        try db.cachedStatement(sql: "INSERT INTO user_events (user_id, pts, pts_count, date, body) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [user, event.pts, event.ptsCount, event.date, Data(event.update)])
    }

    // MARK: messages

    func message(owner: Int64, id: Int32) throws -> StoredMessage? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.messageColumns) FROM messages WHERE owner = ? AND id = ?"), arguments: [owner, id])
            .map(Self.message(from:))
    }

    func messages(owner: Int64, peer: PeerRef, in range: IDRange) throws -> [StoredMessage] {
        let order = range.newestFirst ? "DESC" : "ASC"
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.messageColumns) FROM messages INDEXED BY messages_by_dialog WHERE owner = ? AND peer_type = ? AND peer_id = ? AND id > ? AND id < ?
            ORDER BY id \(order) LIMIT ?
            """), arguments: [owner, peer.typeCode, peer.id, range.above, range.below, range.limit]).map(Self.message(from:))
    }

    func lastMessageID(owner: Int64, peer: PeerRef, atOrBefore date: Int32) throws -> Int32? {
        try Int32.fetchOne(db.cachedStatement(sql: """
            SELECT MAX(id) FROM messages INDEXED BY messages_by_dialog WHERE owner = ? AND peer_type = ? AND peer_id = ? AND date <= ?
            """), arguments: [owner, peer.typeCode, peer.id, date])
    }

    func lastMessage(owner: Int64, peer: PeerRef, from: Int64, atOrBelow id: Int32) throws -> StoredMessage? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT \(Self.messageColumns) FROM messages INDEXED BY messages_by_dialog WHERE owner = ? AND peer_type = ? AND peer_id = ? AND id <= ? AND from_id = ?
            ORDER BY id DESC LIMIT 1
            """), arguments: [owner, peer.typeCode, peer.id, id, from]).map(Self.message(from:))
    }

    func incomingCount(owner: Int64, peer: PeerRef, above id: Int32) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM messages INDEXED BY messages_by_dialog WHERE owner = ? AND peer_type = ? AND peer_id = ? AND id > ? AND out = 0
            """), arguments: [owner, peer.typeCode, peer.id, id]) ?? 0
    }

    func unreadTotal(owner: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT SUM(unread_count) FROM dialogs WHERE owner = ?"), arguments: [owner]) ?? 0
    }

    func messageCount(owner: Int64, peer: PeerRef) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM messages INDEXED BY messages_by_dialog WHERE owner = ? AND peer_type = ? AND peer_id = ?"),
                         arguments: [owner, peer.typeCode, peer.id]) ?? 0
    }

    func upsert(_ message: StoredMessage) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO messages (owner, id, peer_type, peer_id, from_id, out, date, text, entities, edit_date,
                counterpart_id, action) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [message.owner, message.id, message.peer.typeCode, message.peer.id, message.fromID,
                                     message.out, message.date, Data(message.text.utf8), Data(message.entities), message.editDate,
                                     message.counterpartID, message.action.map { Data($0) }])
    }

    func deleteMessage(owner: Int64, id: Int32) throws {
        try db.execute(sql: "DELETE FROM messages WHERE owner = ? AND id = ?", arguments: [owner, id])
    }

    static let messageColumns = "owner, id, peer_type, peer_id, from_id, out, date, text, entities, edit_date, counterpart_id, action"

    static func message(from row: Row) -> StoredMessage {
        let text: Data = row[7]
        let entities: Data = row[8]
        let peerType: Int = row[2]
        let peerID: Int64 = row[3]
        return StoredMessage(owner: row[0], id: row[1], peer: PeerRef(typeCode: peerType, id: peerID) ?? .user(peerID),
                             fromID: row[4], out: row[5], date: row[6], text: String(decoding: text, as: UTF8.self),
                             entities: [UInt8](entities), editDate: row[9], counterpartID: row[10],
                             action: (row[11] as Data?).map { [UInt8]($0) })
    }

    // MARK: dialogs

    func dialog(owner: Int64, peer: PeerRef) throws -> DialogRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.dialogColumns) FROM dialogs WHERE owner = ? AND peer_type = ? AND peer_id = ?"),
                         arguments: [owner, peer.typeCode, peer.id]).map(Self.dialog(from:))
    }

    func dialogs(owner: Int64, before: (date: Int32, topMessage: Int32)?, limit: Int) throws -> [DialogRecord] {
        let bound = before ?? (Int32.max, Int32.max)
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.dialogColumns) FROM dialogs WHERE owner = ? AND (top_date, top_message) < (?, ?)
            ORDER BY top_date DESC, top_message DESC LIMIT ?
            """), arguments: [owner, bound.date, bound.topMessage, limit]).map(Self.dialog(from:))
    }

    func dialogCount(owner: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM dialogs WHERE owner = ?"), arguments: [owner]) ?? 0
    }

    func upsert(_ dialog: DialogRecord) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO dialogs (owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id,
                read_outbox_max_id, unread_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [dialog.owner, dialog.peer.typeCode, dialog.peer.id, dialog.topMessage, dialog.topDate,
                                     dialog.readInboxMaxID, dialog.readOutboxMaxID, dialog.unreadCount])
    }

    /// One statement instead of a read and a write: every send raises two dialogs.
    func raiseDialog(owner: Int64, peer: PeerRef, topMessage: Int32, date: Int32, unread: Int32, readInboxTo: Int32) throws {
        try db.cachedStatement(sql: """
            INSERT INTO dialogs (owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id, read_outbox_max_id,
                unread_count) VALUES (?, ?, ?, ?, ?, ?, 0, ?)
            ON CONFLICT (owner, peer_type, peer_id) DO UPDATE SET
                top_message = max(top_message, excluded.top_message), top_date = max(top_date, excluded.top_date),
                read_inbox_max_id = max(read_inbox_max_id, excluded.read_inbox_max_id),
                unread_count = unread_count + excluded.unread_count
            """).execute(arguments: [owner, peer.typeCode, peer.id, topMessage, date, readInboxTo, unread])
    }

    static let dialogColumns = "owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id, read_outbox_max_id, unread_count"

    static func dialog(from row: Row) -> DialogRecord {
        let peerType: Int = row[1]
        let peerID: Int64 = row[2]
        return DialogRecord(owner: row[0], peer: PeerRef(typeCode: peerType, id: peerID) ?? .user(peerID), topMessage: row[3],
                            topDate: row[4], readInboxMaxID: row[5], readOutboxMaxID: row[6], unreadCount: row[7])
    }

    // MARK: idempotent sends

    func sent(user: Int64, randomID: Int64) throws -> SentRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT message_id, pts, date, channel_id FROM sent_random_ids WHERE user_id = ? AND random_id = ?"),
                         arguments: [user, randomID]).map { row in
            let channel: Int64 = row[3]
            return SentRecord(messageID: row[0], pts: row[1], date: row[2], channelID: channel == 0 ? nil : channel)
        }
    }

    func recordSent(_ record: SentRecord, user: Int64, randomID: Int64) throws {
        try db.cachedStatement(sql: """
            INSERT INTO sent_random_ids (user_id, random_id, message_id, pts, date, channel_id) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [user, randomID, record.messageID, record.pts, record.date, record.channelID ?? 0])
    }
}
