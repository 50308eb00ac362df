import Foundation
import Logging
import PostgresNIO

/// Statements about databases rather than in one (creating and dropping a scratch database, counting a database's
/// connections), each on a connection of its own to the URL given: what `synccore bench --postgres` does to measure on
/// a database of its own, and what the test suites do per test.
public enum PostgresMaintenance {
    /// Why a maintenance statement failed (postgres-nio's own error, written out in full).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates an empty database named `prefix` and a random suffix in the cluster `base` names; returns its URL.
    public static func createDatabase(prefix: String, in base: String) async throws -> String {
        let name = prefix + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await execute("CREATE DATABASE \(name)", at: base)
        guard var components = URLComponents(string: base) else { throw Failure(description: "not a postgres:// URL: \(base)") }
        components.path = "/" + name
        return components.string ?? base
    }

    /// Drops a database made by `createDatabase` with the same `prefix` (its open connections are ended); any other
    /// database is left alone.
    public static func dropDatabase(_ database: String, prefix: String, in base: String) async {
        guard let name = URLComponents(string: database)?.path.dropFirst(), name.hasPrefix(prefix) else { return }
        try? await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", at: base)
    }

    /// Runs one statement at `url`.
    public static func execute(_ sql: String, at url: String) async throws {
        try await withConnection(to: url) { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
    }

    private static let logger = Logger(label: "synccore.postgres-maintenance")

    /// A connection of its own to `url`, closed after `body`: connecting may take 30 s (the URL's default is 5 s; a
    /// machine busy with a whole test suite on two cores has taken longer), and a failure says what it was.
    public static func withConnection<T>(to url: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        var configuration = try PostgresURL.configuration(url)
        configuration.options.connectTimeout = .seconds(30)
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            defer { Task { try? await connection.close() } }
            return try await body(connection)
        } catch let error as PSQLError {
            throw Failure(description: String(reflecting: error))
        }
    }
}
