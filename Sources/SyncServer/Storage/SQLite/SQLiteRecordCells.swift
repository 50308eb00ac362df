import Foundation
import GRDB
import GRDBSQLite

/// SQLite's cells for the records' codec (`RecordCells`): GRDB's `Row` for reads through GRDB, `RawRow` for the
/// writer's hot statements. Text is the BLOB of its UTF-8 bytes (`Bindings.add(utf8:)`), or TEXT in rows older tools
/// wrote; both read. Nothing here traps: a cell of another storage class, or past the row's end, throws.
extension Row: RecordCells {
    private func value(at index: Int) throws(StoredRowError) -> DatabaseValue {
        guard index >= 0, index < count else { throw StoredRowError(index: index, expected: "a value (the row is shorter)") }
        return self[index] as DatabaseValue
    }

    func optionalInt64(at index: Int) throws(StoredRowError) -> Int64? {
        switch try value(at: index).storage {
        case .null: nil
        case let .int64(value): value
        default: throw StoredRowError(index: index, expected: "an integer")
        }
    }

    func optionalText(at index: Int) throws(StoredRowError) -> String? {
        switch try value(at: index).storage {
        case .null: nil
        case let .string(text): text
        case let .blob(data): String(decoding: data, as: UTF8.self)
        default: throw StoredRowError(index: index, expected: "text")
        }
    }

    /// Copied once, straight from SQLite's buffer (differences read up to 100,000 update bodies per call).
    func optionalBytes(at index: Int) throws(StoredRowError) -> [UInt8]? {
        guard index >= 0, index < count else { throw StoredRowError(index: index, expected: "a value (the row is shorter)") }
        do {
            return try withUnsafeData(atIndex: index) { data in data.map { [UInt8]($0) } }
        } catch {
            throw StoredRowError(index: index, expected: "bytes")
        }
    }
}

extension RawRow: RecordCells {
    private func type(at index: Int) throws(StoredRowError) -> Int32 {
        guard index >= 0, index < Int(sqlite3_column_count(handle)) else {
            throw StoredRowError(index: index, expected: "a value (the row is shorter)")
        }
        return sqlite3_column_type(handle, Int32(index))
    }

    func optionalInt64(at index: Int) throws(StoredRowError) -> Int64? {
        switch try type(at: index) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER: return sqlite3_column_int64(handle, Int32(index))
        default: throw StoredRowError(index: index, expected: "an integer")
        }
    }

    func optionalText(at index: Int) throws(StoredRowError) -> String? {
        try optionalBytes(at: index).map { String(decoding: $0, as: UTF8.self) }
    }

    func optionalBytes(at index: Int) throws(StoredRowError) -> [UInt8]? {
        switch try type(at: index) {
        case SQLITE_NULL:
            return nil
        case SQLITE_BLOB, SQLITE_TEXT:
            // The pointer is valid until the next step; the bytes are copied now. A zero-length BLOB has no pointer.
            let count = Int(sqlite3_column_bytes(handle, Int32(index)))
            guard count > 0, let base = sqlite3_column_blob(handle, Int32(index)) else { return [] }
            return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
        default:
            throw StoredRowError(index: index, expected: "bytes")
        }
    }
}
