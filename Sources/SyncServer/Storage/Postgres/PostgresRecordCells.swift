import NIOCore
import PostgresNIO

/// PostgreSQL's cells for the records' codec (`RecordCells`), by position through postgres-nio's random-access row.
/// Integers of any width (`smallint` codes, `integer` counters, `bigint` ids) widen to `Int64`; text is `text`, bytes
/// `bytea`. A cell past the row's end or of another type throws instead of trapping.
struct PostgresRecordCells: RecordCells {
    private let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row.makeRandomAccess()
    }

    private func decode<Value: PostgresDecodable>(_: Value.Type, at index: Int, expected: String) throws(StoredRowError) -> Value {
        guard index >= 0, index < row.count else { throw StoredRowError(index: index, expected: "a value (the row is shorter)") }
        do {
            return try row[index].decode(Value.self)
        } catch {
            throw StoredRowError(index: index, expected: expected)
        }
    }

    func optionalInt64(at index: Int) throws(StoredRowError) -> Int64? { try decode(Int64?.self, at: index, expected: "an integer") }
    func bool(at index: Int) throws(StoredRowError) -> Bool { try decode(Bool.self, at: index, expected: "a boolean") }
    func optionalText(at index: Int) throws(StoredRowError) -> String? { try decode(String?.self, at: index, expected: "text") }

    func optionalBytes(at index: Int) throws(StoredRowError) -> [UInt8]? {
        try decode(ByteBuffer?.self, at: index, expected: "bytes").map { Array($0.readableBytesView) }
    }
}

extension PostgresRow {
    /// The record whose columns start after the first `offset` cells.
    func record<Record: StoredRecord>(_: Record.Type, after offset: Int = 0) throws(StoredRowError) -> Record {
        try PostgresRecordCells(self).record(Record.self, after: offset)
    }
}
