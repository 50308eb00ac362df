import GRDB
import GRDBSQLite

/// One of GRDB's prepared statements bound and stepped through SQLite's C API.
///
/// Why: every `messages.sendMessage` runs about ten statements in the writer, and `synccore bench server --only store`
/// profiled GRDB's argument layer (a `StatementArguments` array of existentials converted value by value, the
/// statement cache keyed by the SQL text) at more CPU than SQLite's own work. The statement stays GRDB's — prepared,
/// cached and finalized by GRDB, run inside GRDB's transaction — only binding, stepping and reading columns skip the
/// conversion layer. The server registers no GRDB transaction observers, so nothing misses these executions.
struct RawStatement {
    /// Keeps GRDB's statement (and so the handle) alive.
    private let statement: Statement
    private let handle: SQLiteStatement
    private let db: Database

    init(_ db: Database, sql: String) throws {
        self.db = db
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
    }

    /// Runs a statement that returns no rows.
    func execute(_ bind: (inout Bindings) -> Void) throws {
        var bindings = Bindings(handle: handle)
        sqlite3_reset(handle)
        bind(&bindings)
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else { throw error(code) }
    }

    /// The first row read by `read`, or nil when there is none.
    func fetchOne<T>(_ bind: (inout Bindings) -> Void, _ read: (RawRow) throws -> T) throws -> T? {
        var bindings = Bindings(handle: handle)
        sqlite3_reset(handle)
        bind(&bindings)
        defer { sqlite3_reset(handle) }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return try read(RawRow(handle: handle))
        case SQLITE_DONE: return nil
        case let code: throw error(code)
        }
    }

    /// Every row, each read by `read`.
    func fetchAll<T>(_ bind: (inout Bindings) -> Void, _ read: (RawRow) throws -> T) throws -> [T] {
        var bindings = Bindings(handle: handle)
        sqlite3_reset(handle)
        bind(&bindings)
        return try stepAll(read)
    }

    /// Every row of the statement with `values` bound in order, each read by `read`.
    func fetchAll<T, each Value: StorageValue>(binding values: repeat each Value, read: (RawRow) throws -> T) throws -> [T] {
        bind(repeat each values)
        return try stepAll(read)
    }

    /// Steps the bound statement to its end, each row read by `read`, and resets it.
    private func stepAll<T>(_ read: (RawRow) throws -> T) throws -> [T] {
        defer { sqlite3_reset(handle) }
        var rows: [T] = []
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: rows.append(try read(RawRow(handle: handle)))
            case SQLITE_DONE: return rows
            case let code: throw error(code)
            }
        }
    }

    /// Runs the statement with `values` bound in order; it returns no rows.
    func execute<each Value: StorageValue>(binding values: repeat each Value) throws {
        bind(repeat each values)
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else { throw error(code) }
    }

    private func bind<each Value: StorageValue>(_ values: repeat each Value) {
        var bindings = Bindings(handle: handle)
        sqlite3_reset(handle)
        repeat (each values).add(to: &bindings)
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }
}

/// Positional parameters, bound in order from ?1 (records bind themselves through `RecordValues`).
struct Bindings: RecordValues {
    fileprivate let handle: SQLiteStatement
    private var index: Int32 = 0

    fileprivate init(handle: SQLiteStatement) {
        self.handle = handle
    }

    mutating func add(_ value: Int64) {
        index += 1
        sqlite3_bind_int64(handle, index, value)
    }

    mutating func add(_ value: Int32) { add(Int64(value)) }
    mutating func add(_ value: Int) { add(Int64(value)) }
    mutating func add(_ value: Bool) { add(Int64(value ? 1 : 0)) }

    mutating func add(_ value: Int32?) {
        guard let value else { return addNull() }
        add(Int64(value))
    }

    mutating func add(_ value: Int64?) {
        guard let value else { return addNull() }
        add(value)
    }

    /// Bytes as a BLOB (never NULL, also when empty); SQLite copies them before the call returns.
    mutating func add(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { addBlob($0) }
    }

    mutating func add(_ bytes: [UInt8]?) {
        guard let bytes else { return addNull() }
        add(bytes)
    }

    /// Text goes in as the BLOB of its UTF-8 bytes, as every text column of the server's schema holds it: SQLite
    /// reads TEXT only up to a NUL character, and message text from the network may contain one.
    mutating func add(utf8 text: String) {
        var text = text
        text.withUTF8 { addBlob(UnsafeRawBufferPointer($0)) }
    }

    /// A text column as TEXT (lookups compare it with text: a phone, a username).
    mutating func add(text: String) {
        index += 1
        var text = text
        _ = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress, !chars.isEmpty {
                    sqlite3_bind_text(handle, index, base, Int32(chars.count), Self.transient)
                } else {
                    sqlite3_bind_text(handle, index, "", 0, Self.transient)   // empty, not NULL
                }
            }
        }
    }

    mutating func add(text: String?) {
        guard let text else { return addNull() }
        add(text: text)
    }

    mutating func add(code value: Int) { add(Int64(value)) }

    /// A record's columns, in their `RecordColumns` order.
    mutating func add(record: some StoredRecord) { record.encode(to: &self) }

    mutating func addNull() {
        index += 1
        sqlite3_bind_null(handle, index)
    }

    private mutating func addBlob(_ bytes: UnsafeRawBufferPointer) {
        index += 1
        if let base = bytes.baseAddress, !bytes.isEmpty {
            sqlite3_bind_blob(handle, index, base, Int32(bytes.count), Self.transient)
        } else {
            sqlite3_bind_zeroblob(handle, index, 0)
        }
    }

    /// SQLITE_TRANSIENT: SQLite copies the bytes (Swift's buffers are valid only inside the closures).
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    }
}

/// The current row of a stepped statement, read by column index (0-based, in the SELECT's order).
/// Records read it through `RecordCells` (`SQLiteRecordCells.swift`).
struct RawRow {
    let handle: SQLiteStatement
}

extension SQLiteTransaction: SQLStatements {
    func rows<Text: SQLText, T, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value,
                                                           read: (RawRow) throws -> T) throws -> [T] {
        try RawStatement(db, sql: Text.sqliteText).fetchAll(binding: repeat each values, read: read)
    }

    func execute<Text: SQLText, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value) throws {
        try RawStatement(db, sql: Text.sqliteText).execute(binding: repeat each values)
    }

    var locksCounters: Bool { false }

    func flushRaisedDialogs() throws { try batch?.flushDialogs() }
}
