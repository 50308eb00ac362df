import Foundation
import GRDB
import GRDBSQLite

/// The hot insert of `addMessages`, binding straight through SQLite's C API on GRDB's cached statement.
///
/// Why: `postbox.bench` measured GRDB's `execute(arguments:)` at roughly half of SQLite's own insert rate on
/// this table — the cost is building a `StatementArguments` array of existentials and converting each value per
/// row, not SQLite. The statement stays GRDB's (prepared, cached and finalized by GRDB, inside GRDB's transaction);
/// only binding and stepping skip the conversion layer.
struct MessageInsertStatement {
    private let statement: Statement
    private let db: Database

    /// Inserts a message unless its (peer, namespace, id) exists; `execute` says which happened.
    static let sql = """
        INSERT INTO messages (peer, namespace, id, timestamp, flags, tags, author, text, attributes,
                              reply_to, reply_peer, reply_top, fwd_author, fwd_date, fwd_peer, fwd_namespace, fwd_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(peer, namespace, id) DO NOTHING
        """

    init(_ db: Database) throws {
        self.db = db
        self.statement = try db.cachedStatement(sql: Self.sql)
    }

    /// Returns true when the row was inserted, false when the id already existed.
    func execute(_ message: Message) throws -> Bool {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, message.id.peer.rawValue)
        sqlite3_bind_int64(handle, 2, Int64(message.id.namespace))
        sqlite3_bind_int64(handle, 3, Int64(message.id.id))
        sqlite3_bind_int64(handle, 4, Int64(message.timestamp))
        sqlite3_bind_int64(handle, 5, Int64(message.flags.rawValue))
        sqlite3_bind_int64(handle, 6, Int64(message.tags.rawValue))
        Self.bind(handle, 7, message.author?.rawValue)
        var text = message.text
        text.withUTF8 { Self.bindBlob(handle, 8, UnsafeRawBufferPointer($0)) }
        message.attributes.withUnsafeBytes { Self.bindBlob(handle, 9, $0) }
        for (index, value) in MessageHeaderColumns(message).values.enumerated() { Self.bind(handle, Int32(10 + index), value) }
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: Self.sql)
        }
        return db.changesCount > 0
    }

    private static func bind(_ handle: SQLiteStatement, _ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds bytes as a BLOB (never NULL, also when empty). Text goes in as the BLOB of its UTF-8 bytes: SQLite
    /// and GRDB read TEXT up to the first NUL character, and message text from the network may contain one.
    private static func bindBlob(_ handle: SQLiteStatement, _ index: Int32, _ bytes: UnsafeRawBufferPointer) {
        if let base = bytes.baseAddress, !bytes.isEmpty {
            sqlite3_bind_blob(handle, index, base, Int32(bytes.count), transient)
        } else {
            sqlite3_bind_zeroblob(handle, index, 0)
        }
    }

    /// SQLite copies the bytes before the bind call returns (the Swift buffers are only valid inside the closures).
    private static var transient: sqlite3_destructor_type { unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self) }
}

/// A message's reply and forward headers as the `messages` table's columns (all NULL for a plain message).
struct MessageHeaderColumns {
    static let names = ["reply_to", "reply_peer", "reply_top", "fwd_author", "fwd_date", "fwd_peer", "fwd_namespace", "fwd_id"]
    let values: [Int64?]

    init(_ message: Message) {
        let reply = message.reply, forward = message.forward
        values = [reply.map { Int64($0.messageID) }, reply?.peer?.rawValue, reply?.threadTopID.map { Int64($0) },
                  forward?.author?.rawValue, forward.map { Int64($0.date) }, forward?.source?.peer.rawValue,
                  forward?.source.map { Int64($0.namespace) }, forward?.source.map { Int64($0.id) }]
    }

    /// The headers of a row read with `SELECT *`.
    static func headers(from row: Row) -> (ReplyHeader?, ForwardHeader?) {
        let replyTo: Int64? = row["reply_to"], replyPeer: Int64? = row["reply_peer"], replyTop: Int64? = row["reply_top"]
        let author: Int64? = row["fwd_author"], date: Int64? = row["fwd_date"]
        let sourcePeer: Int64? = row["fwd_peer"], sourceNamespace: Int64? = row["fwd_namespace"], sourceID: Int64? = row["fwd_id"]
        let reply = replyTo.map {
            ReplyHeader(messageID: Int32(truncatingIfNeeded: $0), peer: replyPeer.map(PeerID.init(rawValue:)),
                        threadTopID: replyTop.map { Int32(truncatingIfNeeded: $0) })
        }
        var source: MessageID?
        if let sourcePeer, let sourceNamespace, let sourceID {
            source = MessageID(peer: PeerID(rawValue: sourcePeer), namespace: Int32(truncatingIfNeeded: sourceNamespace),
                               id: Int32(truncatingIfNeeded: sourceID))
        }
        let forward = date.map { ForwardHeader(author: author.map(PeerID.init(rawValue:)), date: Int32(truncatingIfNeeded: $0), source: source) }
        return (reply, forward)
    }
}
