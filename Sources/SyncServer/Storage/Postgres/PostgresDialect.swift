import PostgresNIO
import Synchronization

/// How PostgreSQL runs a statement written once (`SQLText`): its `?` placeholders numbered `$1, $2, …` in order,
/// made once per statement type (postgres-nio reads a prepared statement's text at every execution).
enum PostgresDialect {
    private static let texts = Mutex<[ObjectIdentifier: String]>([:])

    static func sql(of text: any SQLText.Type) -> String {
        if let sql = texts.withLock({ $0[ObjectIdentifier(text)] }) { return sql }
        let sql = numberingPlaceholders(text.text)
        texts.withLock { $0[ObjectIdentifier(text)] = sql }
        return sql
    }

    /// `?` → `$n`, outside quoted literals and identifiers.
    static func numberingPlaceholders(_ text: String) -> String {
        var result = ""
        var number = 0
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// A statement written once, as postgres-nio's prepared statement: named after the statement's own type.
enum Portable<Text: SQLText>: PostgresSQL {
    static var sql: String { PostgresDialect.sql(of: Text.self) }
    static var preparedName: String { PreparedNames.name(of: Text.self) }
}

extension PostgresTransaction: SQLStatements {
    func rows<Text: SQLText, T, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value,
                                                           read: (PostgresRecordCells) throws -> T) throws -> [T] {
        try query(Portable<Text>.self, repeat each values).map { try read(PostgresRecordCells($0)) }
    }

    func execute<Text: SQLText, each Value: StorageValue>(_ text: Text.Type, _ values: repeat each Value) throws {
        try change(Portable<Text>.self, repeat each values)
    }

    var locksCounters: Bool { isWrite }

    func flushRaisedDialogs() throws {}
}
