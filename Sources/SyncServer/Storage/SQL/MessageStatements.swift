/// Users, authorizations, the per-user boxes (state, update log, messages) and dialogs, written once for both backends
/// (`SQLText`). The send path's writes are each backend's own (SQLite's writer batch, PostgreSQL's multi-row flush).
enum UserSQL {
    static let columns = UserColumn.list

    enum ByID: SQLText { static let text = "SELECT \(columns) FROM users WHERE id = ?" }
    enum ByPhone: SQLText { static let text = "SELECT \(columns) FROM users WHERE phone = ?" }
    /// Case-insensitive: SQLite's column compares NOCASE, PostgreSQL has an index on `lower(username)`.
    enum ByUsername: SQLText {
        static let text = "SELECT \(columns) FROM users WHERE lower(username) = lower(?)"
        static let sqliteText = "SELECT \(columns) FROM users WHERE username = ?"
    }
    enum MaxID: SQLText { static let text = "SELECT COALESCE(MAX(id), 0) FROM users" }
    enum Insert: SQLText { static let text = "INSERT INTO users (\(columns)) VALUES (\(UserColumn.placeholders))" }
    /// The whole row from the record, then the id.
    enum Update: SQLText { static let text = "UPDATE users SET (\(columns)) = (\(UserColumn.placeholders)) WHERE id = ?" }

    enum UserOfKey: SQLText { static let text = "SELECT user_id FROM authorizations WHERE auth_key_id = ?" }
    enum BindKey: SQLText {
        static let text = """
            INSERT INTO authorizations (auth_key_id, user_id) VALUES (?, ?) ON CONFLICT (auth_key_id) DO UPDATE SET user_id = excluded.user_id
            """
    }
    enum UnbindKey: SQLText { static let text = "DELETE FROM authorizations WHERE auth_key_id = ?" }
}

enum BoxSQL {
    static let stateColumns = UserStateColumn.list

    enum State: SQLText { static let text = "SELECT \(stateColumns) FROM user_states WHERE user_id = ?" }
    enum StateForUpdate: SQLText {
        static let text = "SELECT \(stateColumns) FROM user_states WHERE user_id = ? FOR UPDATE"
        static let sqliteText = unlocked
    }
    enum Events: SQLText {
        static let text = "SELECT \(EventColumn.list) FROM user_events WHERE user_id = ? AND pts > ? ORDER BY pts LIMIT ?"
    }
    enum AppendEvent: SQLText {
        static let text = "INSERT INTO user_events (user_id, \(EventColumn.list)) VALUES (?, \(EventColumn.placeholders))"
    }

    enum SeqEventsSince: SQLText {
        static let text = "SELECT \(SeqEventColumn.list) FROM user_seq_events WHERE user_id = ? AND date >= ? ORDER BY seq LIMIT ?"
    }
    enum SeqEventsInRange: SQLText {
        static let text = "SELECT \(SeqEventColumn.list) FROM user_seq_events WHERE user_id = ? AND seq > ? AND seq <= ? ORDER BY seq"
    }
    enum AppendSeqEvent: SQLText {
        static let text = "INSERT INTO user_seq_events (user_id, \(SeqEventColumn.list)) VALUES (?, \(SeqEventColumn.placeholders))"
    }
}

enum MessageSQL {
    static let columns = MessageColumn.list
    static let dialogColumns = DialogColumn.list
    /// One dialog's messages: SQLite is told to read them by the dialog's index.
    static let dialogIndex = "messages_by_dialog"

    enum Message: SQLText { static let text = "SELECT \(columns) FROM messages WHERE owner = ? AND id = ?" }
    enum NewestFirst: SQLText {
        static let text = """
            SELECT \(columns) FROM messages WHERE owner = ? AND peer_type = ? AND peer_id = ? AND id > ? AND id < ?
            ORDER BY id DESC LIMIT ? OFFSET ?
            """
        static let sqliteText = indexed("messages", by: dialogIndex)
    }
    enum OldestFirst: SQLText {
        static let text = """
            SELECT \(columns) FROM messages WHERE owner = ? AND peer_type = ? AND peer_id = ? AND id > ? AND id < ?
            ORDER BY id ASC LIMIT ? OFFSET ?
            """
        static let sqliteText = indexed("messages", by: dialogIndex)
    }
    enum LastIDByDate: SQLText {
        static let text = "SELECT MAX(id) FROM messages WHERE owner = ? AND peer_type = ? AND peer_id = ? AND date <= ?"
        static let sqliteText = indexed("messages", by: dialogIndex)
    }
    enum LastFrom: SQLText {
        static let text = """
            SELECT \(columns) FROM messages WHERE owner = ? AND peer_type = ? AND peer_id = ? AND id <= ? AND from_id = ?
            ORDER BY id DESC LIMIT 1
            """
        static let sqliteText = indexed("messages", by: dialogIndex)
    }
    enum IncomingCount: SQLText {
        static let text = "SELECT COUNT(*) FROM messages WHERE owner = ? AND peer_type = ? AND peer_id = ? AND id > ? AND NOT out"
        static let sqliteText = indexed("messages", by: dialogIndex)
    }
    /// Counted from the dialog's index alone, up to the limit.
    enum Count: SQLText {
        static let text = "SELECT COUNT(*) FROM (SELECT 1 FROM messages WHERE owner = ? AND peer_type = ? AND peer_id = ? LIMIT ?) AS counted"
        static let sqliteText = indexed("messages", by: dialogIndex)
    }
    enum IDNewestFirst: SQLText {
        static let text = """
            SELECT id FROM messages WHERE owner = ? AND peer_type = ? AND peer_id = ? AND id > ? AND id < ? ORDER BY id DESC LIMIT 1 OFFSET ?
            """
        static let sqliteText = indexed("messages", by: dialogIndex)
    }
    enum IDOldestFirst: SQLText {
        static let text = """
            SELECT id FROM messages WHERE owner = ? AND peer_type = ? AND peer_id = ? AND id > ? AND id < ? ORDER BY id ASC LIMIT 1 OFFSET ?
            """
        static let sqliteText = indexed("messages", by: dialogIndex)
    }
    enum Upsert: SQLText { static let text = MessageColumn.upsert(into: "messages", key: [.owner, .id]) }
    enum Delete: SQLText { static let text = "DELETE FROM messages WHERE owner = ? AND id = ?" }

    enum Dialog: SQLText { static let text = "SELECT \(dialogColumns) FROM dialogs WHERE owner = ? AND peer_type = ? AND peer_id = ?" }
    enum DialogsBefore: SQLText {
        static let text = """
            SELECT \(dialogColumns) FROM dialogs WHERE owner = ? AND (top_date, top_message) < (?, ?)
            ORDER BY top_date DESC, top_message DESC LIMIT ?
            """
    }
    enum DialogCount: SQLText { static let text = "SELECT COUNT(*) FROM dialogs WHERE owner = ?" }
    enum UnreadTotal: SQLText { static let text = "SELECT CAST(COALESCE(SUM(unread_count), 0) AS BIGINT) FROM dialogs WHERE owner = ?" }
    enum UpsertDialog: SQLText { static let text = DialogColumn.upsert(into: "dialogs", key: [.owner, .peerType, .peerID]) }
    /// The owners of dialogs with a peer, by the dialogs' peer index.
    enum DialogOwners: SQLText {
        static let text = "SELECT owner FROM dialogs WHERE peer_type = ? AND peer_id = ? ORDER BY owner LIMIT ?"
        static let sqliteText = indexed("dialogs", by: "dialogs_by_peer")
    }
}

extension SQLStatements {
    func user(phone: String) throws -> UserRecord? { try row(UserSQL.ByPhone.self, phone) { try $0.record(UserRecord.self) } }

    func user(username: String) throws -> UserRecord? { try row(UserSQL.ByUsername.self, username) { try $0.record(UserRecord.self) } }

    func maxUserID() throws -> Int64 { try integer(UserSQL.MaxID.self) }

    func userID(authKeyID: UInt64) throws -> Int64? {
        try row(UserSQL.UserOfKey.self, Int64(bitPattern: authKeyID)) { try $0.int64(at: 0) }
    }

    func events(user: Int64, afterPts: Int32, limit: Int) throws -> [StoredEvent] {
        try rows(BoxSQL.Events.self, user, afterPts, limit) { try $0.record(StoredEvent.self) }
    }

    func seqEvents(user: Int64, since date: Int32, limit: Int) throws -> [StoredSeqEvent] {
        try rows(BoxSQL.SeqEventsSince.self, user, date, limit) { try $0.record(StoredSeqEvent.self) }
    }

    func seqEvents(user: Int64, afterSeq: Int32, upTo: Int32) throws -> [StoredSeqEvent] {
        try rows(BoxSQL.SeqEventsInRange.self, user, afterSeq, upTo) { try $0.record(StoredSeqEvent.self) }
    }

    func message(owner: Int64, id: Int32) throws -> StoredMessage? {
        try row(MessageSQL.Message.self, owner, id) { try $0.record(StoredMessage.self) }
    }

    func messages(owner: Int64, peer: PeerRef, in range: IDRange) throws -> [StoredMessage] {
        let (type, read) = (Code(peer.typeCode), { (cells: Cells) in try cells.record(StoredMessage.self) })
        return range.newestFirst
            ? try rows(MessageSQL.NewestFirst.self, owner, type, peer.id, range.above, range.below, range.limit, range.skip, read: read)
            : try rows(MessageSQL.OldestFirst.self, owner, type, peer.id, range.above, range.below, range.limit, range.skip, read: read)
    }

    func lastMessageID(owner: Int64, peer: PeerRef, atOrBefore date: Int32) throws -> Int32? {
        try optionalInt32(MessageSQL.LastIDByDate.self, owner, Code(peer.typeCode), peer.id, date)
    }

    func lastMessage(owner: Int64, peer: PeerRef, from: Int64, atOrBelow id: Int32) throws -> StoredMessage? {
        try row(MessageSQL.LastFrom.self, owner, Code(peer.typeCode), peer.id, id, from) { try $0.record(StoredMessage.self) }
    }

    func incomingCount(owner: Int64, peer: PeerRef, above id: Int32) throws -> Int {
        Int(try integer(MessageSQL.IncomingCount.self, owner, Code(peer.typeCode), peer.id, id))
    }

    func messageID(owner: Int64, peer: PeerRef, in range: IDRange) throws -> Int32? {
        let (type, read) = (Code(peer.typeCode), { (cells: Cells) in Int32(truncatingIfNeeded: try cells.int64(at: 0)) })
        return range.newestFirst
            ? try row(MessageSQL.IDNewestFirst.self, owner, type, peer.id, range.above, range.below, range.skip, read: read)
            : try row(MessageSQL.IDOldestFirst.self, owner, type, peer.id, range.above, range.below, range.skip, read: read)
    }

    func messageCount(owner: Int64, peer: PeerRef, upTo limit: Int) throws -> Int {
        Int(try integer(MessageSQL.Count.self, owner, Code(peer.typeCode), peer.id, limit))
    }

    func deleteMessage(owner: Int64, id: Int32) throws { try execute(MessageSQL.Delete.self, owner, id) }

    // Dialogs a write batch raised in memory are written before any of these reads them.

    func dialog(owner: Int64, peer: PeerRef) throws -> DialogRecord? {
        try flushRaisedDialogs()
        return try row(MessageSQL.Dialog.self, owner, Code(peer.typeCode), peer.id) { try $0.record(DialogRecord.self) }
    }

    func dialogs(owner: Int64, before: (date: Int32, topMessage: Int32)?, limit: Int) throws -> [DialogRecord] {
        try flushRaisedDialogs()
        let bound = before ?? (Int32.max, Int32.max)
        return try rows(MessageSQL.DialogsBefore.self, owner, bound.date, bound.topMessage, limit) { try $0.record(DialogRecord.self) }
    }

    func dialogCount(owner: Int64) throws -> Int {
        try flushRaisedDialogs()
        return Int(try integer(MessageSQL.DialogCount.self, owner))
    }

    func unreadTotal(owner: Int64) throws -> Int {
        try flushRaisedDialogs()
        return Int(try integer(MessageSQL.UnreadTotal.self, owner))
    }

    func upsert(_ dialog: DialogRecord) throws {
        try flushRaisedDialogs()
        try execute(MessageSQL.UpsertDialog.self, RecordParameters(dialog))
    }

    func dialogOwners(peer: PeerRef, limit: Int) throws -> [Int64] {
        try flushRaisedDialogs()
        return try integers(MessageSQL.DialogOwners.self, Code(peer.typeCode), peer.id, limit)
    }
}
