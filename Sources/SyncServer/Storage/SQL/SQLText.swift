import NIOCore
import PostgresNIO

/// The server's SQL, written once for both backends.
///
/// A statement is a type whose `text` is portable SQL: `?` placeholders bound in order, `ON CONFLICT … DO UPDATE`
/// upserts, `TRUE`/`FALSE`, nothing either backend lacks (SQLite ≥ 3.24 and PostgreSQL ≥ 12 read all of it). SQLite
/// runs the text as written, through GRDB's statement cache; PostgreSQL runs it as a prepared statement named after
/// the type, with the placeholders numbered once (`PostgresDialect`). What only one backend can say (PostgreSQL's
/// arrays and row locks, SQLite's `WITHOUT ROWID` writer batch) stays in that backend's files.
protocol SQLText: Sendable {
    static var text: String { get }
    /// The text SQLite runs: `text` unless the statement names one of SQLite's index hints (`indexed(by:)`) or reads
    /// what only PostgreSQL must lock.
    static var sqliteText: String { get }
}

extension SQLText {
    static var sqliteText: String { text }

    /// `text` with SQLite's `INDEXED BY index` after `FROM table`: where SQLite's planner, left alone, picked another
    /// index (PostgreSQL's planner reads the statistics and needs no hint).
    static func indexed(_ table: String, by index: String) -> String {
        text.replacingOccurrences(of: "FROM \(table) ", with: "FROM \(table) INDEXED BY \(index) ")
    }

    /// `text` without PostgreSQL's row lock: SQLite's one writer holds the whole database.
    static var unlocked: String { text.replacingOccurrences(of: " FOR UPDATE", with: "") }
}

/// A parameter of a statement written once: bound through the records' codec (`RecordValues`) into SQLite's
/// bindings, and as a postgres-nio value (`SQLValue`).
protocol StorageValue: SQLValue {
    func add(to values: inout some RecordValues)
}

extension Int64: StorageValue { func add(to values: inout some RecordValues) { values.add(self) } }
extension Int32: StorageValue { func add(to values: inout some RecordValues) { values.add(self) } }
extension Bool: StorageValue { func add(to values: inout some RecordValues) { values.add(self) } }
/// A text column compared as text (a phone, a username, a pattern).
extension String: StorageValue { func add(to values: inout some RecordValues) { values.add(text: self) } }

/// Counts, limits and offsets: `bigint` (PostgreSQL infers `LIMIT $n` as one).
extension Int: StorageValue {
    func bind(to bindings: inout PostgresBindings) { bindings.append(Int64(self)) }
    func add(to values: inout some RecordValues) { values.add(Int64(self)) }
}

/// A small code (a peer type, a setting kind): SQLite's INTEGER, PostgreSQL's `smallint`.
struct Code: StorageValue {
    let value: Int

    init(_ value: Int) {
        self.value = value
    }

    func bind(to bindings: inout PostgresBindings) { bindings.append(Int16(truncatingIfNeeded: value)) }
    func add(to values: inout some RecordValues) { values.add(code: value) }
}

/// Bytes: SQLite's BLOB, PostgreSQL's `bytea`.
struct Bytes: StorageValue {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func bind(to bindings: inout PostgresBindings) { bindings.append(ByteBuffer(bytes: bytes)) }
    func add(to values: inout some RecordValues) { values.add(bytes) }
}

extension RecordParameters: StorageValue {
    func add(to values: inout some RecordValues) { record.encode(to: &values) }
}

/// What a backend's transaction offers the statements written once (`SQLiteTransaction`, `PostgresTransaction`); the
/// storage functions written over it serve both.
protocol SQLStatements {
    associatedtype Cells: RecordCells
    /// The rows of a statement that reads, each read by `read` (PostgreSQL writes a batch's pending rows first, so
    /// the statement sees them).
    func rows<Text: SQLText, T, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value,
                                                           read: (Cells) throws -> T) throws -> [T]
    /// Runs a statement that changes rows.
    func execute<Text: SQLText, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value) throws
    /// Whether a read of a box's counters must lock them until the commit (PostgreSQL's writers, of which several
    /// processes run at once; never SQLite's one writer).
    var locksCounters: Bool { get }
    /// Writes the dialogs a write batch raised in memory, before a statement reads dialogs (SQLite's batch keeps
    /// them; PostgreSQL writes every pending row before any read).
    func flushRaisedDialogs() throws
}

extension SQLStatements {
    /// The first row's reading, or nil when the statement found none.
    func row<Text: SQLText, T, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value,
                                                          read: (Cells) throws -> T) throws -> T? {
        try rows(text, repeat each values, read: read).first
    }

    /// The integer in the first column of the first row (`COUNT(*)`, `MAX(…)`), 0 when there is none or it is NULL.
    func integer<Text: SQLText, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value) throws -> Int64 {
        try row(text, repeat each values) { try $0.optionalInt64(at: 0) }.flatMap { $0 } ?? 0
    }

    /// The integer in the first column of the first row, nil when there is none or it is NULL (`MAX(id)` of nothing).
    func optionalInt32<Text: SQLText, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value) throws -> Int32? {
        try row(text, repeat each values) { try $0.optionalInt64(at: 0) }.flatMap { $0 }.map { Int32(truncatingIfNeeded: $0) }
    }

    /// The first column of every row, as integers (ids).
    func integers<Text: SQLText, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value) throws -> [Int64] {
        try rows(text, repeat each values) { try $0.int64(at: 0) }
    }
}

extension RecordColumns {
    /// One row's placeholders: `?, ?, …`.
    static var placeholders: String { Array(repeating: "?", count: allCases.count).joined(separator: ", ") }

    /// Every column but `key`, as an upsert's `SET c = excluded.c, …`: the row as given replaces the stored one.
    static func excludedAssignments(except key: [Self]) -> String {
        zip(allCases, list.components(separatedBy: ", ")).filter { column in !key.contains { $0.rawValue == column.0.rawValue } }
            .map { "\($0.1) = excluded.\($0.1)" }.joined(separator: ", ")
    }

    /// `INSERT INTO table (columns) VALUES (?, …) ON CONFLICT (key) DO UPDATE SET …`: the record's row replaces
    /// the one with the same key, or is added.
    static func upsert(into table: String, key: [Self]) -> String {
        let keyNames = key.map { column in list.components(separatedBy: ", ")[Int(column.rawValue)] }.joined(separator: ", ")
        return "INSERT INTO \(table) (\(list)) VALUES (\(placeholders)) ON CONFLICT (\(keyNames)) DO UPDATE SET \(excludedAssignments(except: key))"
    }
}
