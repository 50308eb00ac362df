import NIOCore
import PostgresNIO

/// Messages of the per-user boxes, and dialogs.
extension PostgresTransaction {
    static let messageColumns = MessageColumn.list

    enum MessageByID: PostgresSQL { static let sql = "SELECT \(messageColumns) FROM messages WHERE owner = $1 AND id = $2" }
    enum DialogMessagesNewestFirst: PostgresSQL {
        static let sql = """
            SELECT \(messageColumns) FROM messages WHERE owner = $1 AND peer_type = $2 AND peer_id = $3 AND id > $4 AND id < $5
            ORDER BY id DESC LIMIT $6 OFFSET $7
            """
    }
    enum DialogMessagesOldestFirst: PostgresSQL {
        static let sql = """
            SELECT \(messageColumns) FROM messages WHERE owner = $1 AND peer_type = $2 AND peer_id = $3 AND id > $4 AND id < $5
            ORDER BY id ASC LIMIT $6 OFFSET $7
            """
    }
    enum LastMessageIDByDate: PostgresSQL {
        static let sql = "SELECT MAX(id) FROM messages WHERE owner = $1 AND peer_type = $2 AND peer_id = $3 AND date <= $4"
    }
    enum LastMessageFrom: PostgresSQL {
        static let sql = """
            SELECT \(messageColumns) FROM messages WHERE owner = $1 AND peer_type = $2 AND peer_id = $3 AND id <= $4 AND from_id = $5
            ORDER BY id DESC LIMIT 1
            """
    }
    enum IncomingCount: PostgresSQL {
        static let sql = "SELECT COUNT(*) FROM messages WHERE owner = $1 AND peer_type = $2 AND peer_id = $3 AND id > $4 AND NOT out"
    }
    enum MessageCount: PostgresSQL {
        static let sql = "SELECT COUNT(*) FROM (SELECT 1 FROM messages WHERE owner = $1 AND peer_type = $2 AND peer_id = $3 LIMIT $4) AS counted"
    }
    enum DialogMessageIDNewestFirst: PostgresSQL {
        static let sql = """
            SELECT id FROM messages WHERE owner = $1 AND peer_type = $2 AND peer_id = $3 AND id > $4 AND id < $5
            ORDER BY id DESC LIMIT 1 OFFSET $6
            """
    }
    enum DialogMessageIDOldestFirst: PostgresSQL {
        static let sql = """
            SELECT id FROM messages WHERE owner = $1 AND peer_type = $2 AND peer_id = $3 AND id > $4 AND id < $5
            ORDER BY id ASC LIMIT 1 OFFSET $6
            """
    }
    enum DeleteMessage: PostgresSQL { static let sql = "DELETE FROM messages WHERE owner = $1 AND id = $2" }

    func message(owner: Int64, id: Int32) throws -> StoredMessage? {
        try query(MessageByID.self, owner, id).first.map { try $0.record(StoredMessage.self) }
    }

    func messages(owner: Int64, peer: PeerRef, in range: IDRange) throws -> [StoredMessage] {
        let (type, limit, skip) = (Int16(peer.typeCode), Int64(range.limit), Int64(range.skip))
        let rows = range.newestFirst
            ? try query(DialogMessagesNewestFirst.self, owner, type, peer.id, range.above, range.below, limit, skip)
            : try query(DialogMessagesOldestFirst.self, owner, type, peer.id, range.above, range.below, limit, skip)
        return try rows.map { try $0.record(StoredMessage.self) }
    }

    func lastMessageID(owner: Int64, peer: PeerRef, atOrBefore date: Int32) throws -> Int32? {
        try query(LastMessageIDByDate.self, owner, Int16(peer.typeCode), peer.id, date).first?.decode(Int32?.self)
    }

    func lastMessage(owner: Int64, peer: PeerRef, from: Int64, atOrBelow id: Int32) throws -> StoredMessage? {
        try query(LastMessageFrom.self, owner, Int16(peer.typeCode), peer.id, id, from).first.map { try $0.record(StoredMessage.self) }
    }

    func incomingCount(owner: Int64, peer: PeerRef, above id: Int32) throws -> Int {
        Int(try query(IncomingCount.self, owner, Int16(peer.typeCode), peer.id, id).first?.decode(Int64.self) ?? 0)
    }

    func messageID(owner: Int64, peer: PeerRef, in range: IDRange) throws -> Int32? {
        let (type, skip) = (Int16(peer.typeCode), Int64(range.skip))
        let rows = range.newestFirst
            ? try query(DialogMessageIDNewestFirst.self, owner, type, peer.id, range.above, range.below, skip)
            : try query(DialogMessageIDOldestFirst.self, owner, type, peer.id, range.above, range.below, skip)
        return try rows.first?.decode(Int32.self)
    }

    func messageCount(owner: Int64, peer: PeerRef, upTo limit: Int) throws -> Int {
        Int(try query(MessageCount.self, owner, Int16(peer.typeCode), peer.id, Int64(limit)).first?.decode(Int64.self) ?? 0)
    }

    func upsert(_ message: StoredMessage) throws {
        memory.upsert(message)
    }

    func deleteMessage(owner: Int64, id: Int32) throws {
        try change(DeleteMessage.self, owner, id)
    }

    // MARK: dialogs

    static let dialogColumns = DialogColumn.list

    enum DialogByPeer: PostgresSQL {
        static let sql = "SELECT \(dialogColumns) FROM dialogs WHERE owner = $1 AND peer_type = $2 AND peer_id = $3"
    }
    enum DialogsBefore: PostgresSQL {
        static let sql = """
            SELECT \(dialogColumns) FROM dialogs WHERE owner = $1 AND (top_date, top_message) < ($2, $3)
            ORDER BY top_date DESC, top_message DESC LIMIT $4
            """
    }
    enum DialogCount: PostgresSQL { static let sql = "SELECT COUNT(*) FROM dialogs WHERE owner = $1" }
    enum UnreadTotal: PostgresSQL { static let sql = "SELECT COALESCE(SUM(unread_count), 0)::bigint FROM dialogs WHERE owner = $1" }
    enum UpsertDialog: PostgresSQL {
        static let sql = """
            INSERT INTO dialogs (\(dialogColumns)) VALUES (\(DialogColumn.postgresParameters()))
            ON CONFLICT (owner, peer_type, peer_id) DO UPDATE SET top_message = excluded.top_message, top_date = excluded.top_date,
                read_inbox_max_id = excluded.read_inbox_max_id, read_outbox_max_id = excluded.read_outbox_max_id,
                unread_count = excluded.unread_count
            """
    }
    func dialog(owner: Int64, peer: PeerRef) throws -> DialogRecord? {
        try query(DialogByPeer.self, owner, Int16(peer.typeCode), peer.id).first.map { try $0.record(DialogRecord.self) }
    }

    func dialogs(owner: Int64, before: (date: Int32, topMessage: Int32)?, limit: Int) throws -> [DialogRecord] {
        let bound = before ?? (Int32.max, Int32.max)
        return try query(DialogsBefore.self, owner, bound.date, bound.topMessage, Int64(limit)).map { try $0.record(DialogRecord.self) }
    }

    func dialogCount(owner: Int64) throws -> Int {
        Int(try query(DialogCount.self, owner).first?.decode(Int64.self) ?? 0)
    }

    func unreadTotal(owner: Int64) throws -> Int {
        Int(try query(UnreadTotal.self, owner).first?.decode(Int64.self) ?? 0)
    }

    func upsert(_ dialog: DialogRecord) throws {
        try change(UpsertDialog.self, RecordParameters(dialog))
    }

    func raiseDialog(owner: Int64, peer: PeerRef, topMessage: Int32, date: Int32, unread: Int32, readInboxTo: Int32) throws {
        memory.raiseDialog(DialogKey(owner: owner, peer: peer),
                           DialogRaise(topMessage: topMessage, date: date, unread: unread, readInboxTo: readInboxTo))
    }

}
