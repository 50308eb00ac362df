/// Reading and writing stored records, written once for both backends.
///
/// A record type names its columns (`RecordColumns`), decodes itself from a `RecordRow` of them and encodes itself
/// into `RecordValues` in their order (`StoredRecord`); each backend only says how one of its cells becomes an
/// integer, a flag, text or bytes (`RecordCells`: SQLite's values through its C API or GRDB's `Row`, PostgreSQL's
/// cells through postgres-nio) and how a value is bound (`RecordValues`: SQLite's `Bindings`, PostgreSQL's
/// `PostgresRecordValues`). A cell that does not hold what the record expects is a typed error (`StoredRowError`),
/// never a trap.

/// The cells of one fetched row, by position, as a backend reads them (nil for NULL); the non-optional reads are
/// derived, and a NULL where a value belongs is a `StoredRowError` like any other mismatch.
protocol RecordCells {
    func optionalInt64(at index: Int) throws(StoredRowError) -> Int64?
    /// A text column (SQLite keeps text as the BLOB of its UTF-8 bytes or as TEXT, PostgreSQL as `text`).
    func optionalText(at index: Int) throws(StoredRowError) -> String?
    /// A BLOB / `bytea` column.
    func optionalBytes(at index: Int) throws(StoredRowError) -> [UInt8]?
    /// A flag (SQLite: an integer, PostgreSQL: `boolean`).
    func bool(at index: Int) throws(StoredRowError) -> Bool
}

extension RecordCells {
    func int64(at index: Int) throws(StoredRowError) -> Int64 {
        guard let value = try optionalInt64(at: index) else { throw StoredRowError(index: index, expected: "an integer") }
        return value
    }

    func text(at index: Int) throws(StoredRowError) -> String {
        guard let text = try optionalText(at: index) else { throw StoredRowError(index: index, expected: "text") }
        return text
    }

    func bytes(at index: Int) throws(StoredRowError) -> [UInt8] {
        guard let bytes = try optionalBytes(at: index) else { throw StoredRowError(index: index, expected: "bytes") }
        return bytes
    }

    /// SQLite's flags: integers.
    func bool(at index: Int) throws(StoredRowError) -> Bool { try int64(at: index) != 0 }
}

/// A cell that is missing or does not hold the value its record expects: a damaged row or a schema mismatch.
struct StoredRowError: Error, CustomStringConvertible {
    let index: Int
    let expected: String

    var description: String { "stored row: column \(index) does not hold \(expected)" }
}

/// One fetched row read by a record's typed columns. `offset` counts the columns a statement puts before the record's
/// own (`user_id` before a box state, `random_id` before a send).
struct RecordRow<Column: RecordColumns, Cells: RecordCells> {
    let cells: Cells
    let offset: Int

    private func at(_ column: Column) -> Int { offset + Int(column.rawValue) }

    func int64(_ column: Column) throws(StoredRowError) -> Int64 { try cells.int64(at: at(column)) }
    func optionalInt64(_ column: Column) throws(StoredRowError) -> Int64? { try cells.optionalInt64(at: at(column)) }
    /// The server writes these columns from `Int32` values (ids, pts, dates, counts); truncating never fails for them.
    func int32(_ column: Column) throws(StoredRowError) -> Int32 { Int32(truncatingIfNeeded: try int64(column)) }
    func optionalInt32(_ column: Column) throws(StoredRowError) -> Int32? { try optionalInt64(column).map { Int32(truncatingIfNeeded: $0) } }
    func bool(_ column: Column) throws(StoredRowError) -> Bool { try cells.bool(at: at(column)) }
    func text(_ column: Column) throws(StoredRowError) -> String { try cells.text(at: at(column)) }
    func optionalText(_ column: Column) throws(StoredRowError) -> String? { try cells.optionalText(at: at(column)) }
    func bytes(_ column: Column) throws(StoredRowError) -> [UInt8] { try cells.bytes(at: at(column)) }
    func optionalBytes(_ column: Column) throws(StoredRowError) -> [UInt8]? { try cells.optionalBytes(at: at(column)) }
    /// Message text, stored as bytes in both backends (it may hold a NUL); decoded as received (it was valid UTF-8).
    func utf8(_ column: Column) throws(StoredRowError) -> String { String(decoding: try bytes(column), as: UTF8.self) }
    /// A peer stored as type code and id.
    func peer(type: Column, id: Column) throws(StoredRowError) -> PeerRef {
        let peerID = try int64(id)
        return PeerRef(typeCode: Int(try int64(type)), id: peerID) ?? .user(peerID)
    }
}

/// Parameters of one statement, bound in order, as a backend binds each kind of value.
protocol RecordValues {
    mutating func add(_ value: Int64)
    mutating func add(_ value: Int64?)
    mutating func add(_ value: Int32)
    mutating func add(_ value: Int32?)
    mutating func add(_ value: Bool)
    /// A small code (peer type, role): SQLite's INTEGER, PostgreSQL's `smallint`.
    mutating func add(code value: Int)
    /// A text column (names, titles, phones).
    mutating func add(text: String)
    mutating func add(text: String?)
    /// Message text, kept as bytes by both backends (it may hold a NUL).
    mutating func add(utf8 text: String)
    mutating func add(_ bytes: [UInt8])
    mutating func add(_ bytes: [UInt8]?)
}

/// A record that reads itself from its columns and writes itself as the parameters of one row, in the order of its
/// `RecordColumns` (so `INSERT INTO t (\(Column.list)) VALUES (…)` takes them as they come).
protocol StoredRecord {
    associatedtype Column: RecordColumns
    init<Cells: RecordCells>(_ row: RecordRow<Column, Cells>) throws(StoredRowError)
    func encode(to values: inout some RecordValues)
}

extension RecordCells {
    /// The record whose columns start after the first `offset` cells.
    func record<Record: StoredRecord>(_: Record.Type, after offset: Int = 0) throws(StoredRowError) -> Record {
        try Record(RecordRow(cells: self, offset: offset))
    }
}
