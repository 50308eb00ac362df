import NIOCore
import PostgresNIO

/// PostgreSQL's parameters for the records' codec (`RecordValues`): codes are `smallint`, message text and bytes
/// `bytea`, text `text`.
struct PostgresRecordValues: RecordValues {
    var bindings: PostgresBindings

    mutating func add(_ value: Int64) { bindings.append(value) }
    mutating func add(_ value: Int64?) { append(value) }
    mutating func add(_ value: Int32) { bindings.append(value) }
    mutating func add(_ value: Int32?) { append(value) }
    mutating func add(_ value: Bool) { bindings.append(value) }
    /// Codes are small (a peer type or a role, 0–2).
    mutating func add(code value: Int) { bindings.append(Int16(truncatingIfNeeded: value)) }
    mutating func add(text: String) { bindings.append(text) }
    mutating func add(text: String?) { append(text) }
    mutating func add(utf8 text: String) { bindings.append(ByteBuffer(string: text)) }
    mutating func add(_ bytes: [UInt8]) { bindings.append(ByteBuffer(bytes: bytes)) }
    mutating func add(_ bytes: [UInt8]?) { append(bytes.map { ByteBuffer(bytes: $0) }) }

    private mutating func append<Value: PostgresEncodable & PostgresNonThrowingEncodable>(_ value: Value?) {
        if let value { bindings.append(value) } else { bindings.appendNull() }
    }
}

/// A record as the parameters of one statement (its columns in `RecordColumns` order), among others of a parameter
/// pack, for either backend (`StorageValue`): `execute(ChannelSQL.UpsertChat.self, RecordParameters(chat))`.
struct RecordParameters<Record: StoredRecord>: SQLValue {
    let record: Record

    init(_ record: Record) {
        self.record = record
    }

    func bind(to bindings: inout PostgresBindings) {
        // Swapped in and out rather than copied, so appending never copies the bytes bound before.
        var values = PostgresRecordValues(bindings: PostgresBindings())
        swap(&values.bindings, &bindings)
        record.encode(to: &values)
        swap(&values.bindings, &bindings)
    }
}
