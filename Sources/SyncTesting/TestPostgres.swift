import Foundation
import Logging
import PostgresNIO
import SyncServer

/// A storage backend a server test runs on. Tests that store or serve take one as their argument, so one suite
/// covers both backends (`StorageBackend.all`).
public enum StorageBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    /// SQLite always; PostgreSQL when a test cluster is configured (`SYNCCORE_TEST_POSTGRES`, which `.ci/run` sets
    /// after starting one with `Scripts/postgres.sh`). In CI a missing cluster fails `TestPostgres.checkConfigured`.
    public static var all: [StorageBackend] { TestPostgres.url == nil ? [.sqlite] : [.sqlite, .postgres] }

    public var description: String { rawValue }
}

public enum TestPostgresError: Error, CustomStringConvertible {
    case notConfigured
    case badURL(String)

    public var description: String {
        switch self {
        case .notConfigured: "SYNCCORE_TEST_POSTGRES is not set (start a cluster with Scripts/postgres.sh start DIR)"
        case let .badURL(url): "SYNCCORE_TEST_POSTGRES is not a postgres:// URL: \(url)"
        }
    }
}

/// The test cluster: one empty database per test, dropped when the test ends.
public enum TestPostgres {
    public static var url: String? { ProcessInfo.processInfo.environment["SYNCCORE_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 } }

    /// The prefix of every database a test makes (and the only ones `dropDatabase` drops).
    static let prefix = "synccore_test_"

    /// Creates an empty database in the test cluster (or the cluster `base` names) and returns its URL.
    public static func createDatabase(in base: String? = nil) async throws -> String {
        guard let base = base ?? url else { throw TestPostgresError.notConfigured }
        return try await PostgresMaintenance.createDatabase(prefix: prefix, in: base)
    }

    /// Drops a database made by `createDatabase` (connections still open are ended).
    public static func dropDatabase(_ database: String, in base: String? = nil) async {
        guard let base = base ?? url else { return }
        await PostgresMaintenance.dropDatabase(database, prefix: prefix, in: base)
    }

    /// Runs one statement in a database (a test's own tampering).
    public static func execute(_ sql: String, in database: String) async throws {
        try await run(sql, at: database)
    }

    /// How many connections to `database` the cluster has open (`pg_stat_activity`), asked from its `postgres`
    /// database so the asking connection is not counted.
    public static func connectionCount(to database: String) async throws -> Int {
        try await countOnMaintenanceDatabase(of: database) { name in "SELECT count(*) FROM pg_stat_activity WHERE datname = \(name)" }
    }

    /// How a connection reaches the cluster, as the cluster sees it.
    public enum Transport: Sendable {
        /// TCP with TLS (`pg_stat_ssl`).
        case encrypted
        /// TCP without TLS.
        case plainTCP
        /// The cluster's Unix socket (no client address).
        case unixSocket
    }

    /// How many of `database`'s connections use `transport`.
    public static func connectionCount(to database: String, over transport: Transport) async throws -> Int {
        try await countOnMaintenanceDatabase(of: database) { name in
            switch transport {
            case .encrypted:
                "SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.datname = \(name) AND s.ssl"
            case .plainTCP:
                """
                SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
                WHERE a.datname = \(name) AND NOT s.ssl AND a.client_addr IS NOT NULL
                """
            case .unixSocket:
                "SELECT count(*) FROM pg_stat_activity WHERE datname = \(name) AND client_addr IS NULL AND backend_type = 'client backend'"
            }
        }
    }

    /// The directory of the test cluster's Unix socket (its first `unix_socket_directories` entry).
    public static func socketDirectory() async throws -> String {
        guard let base = url else { throw TestPostgresError.notConfigured }
        let found = try await withConnection(to: base) { connection -> String? in
            let rows = try await connection.query("SHOW unix_socket_directories", logger: logger)
            for try await directories in rows.decode(String.self) {
                if let first = directories.split(separator: ",").first { return first.trimmingCharacters(in: .whitespaces) }
            }
            return nil
        }
        guard let found else { throw TestPostgresError.badURL(base) }
        return found
    }

    /// Runs a `count(*)` about `database` from the cluster's `postgres` database, so the asking connection is not
    /// one of those counted; `query` gets the database's name as a bound parameter.
    private static func countOnMaintenanceDatabase(of database: String,
                                                   _ query: (String) -> PostgresQuery) async throws -> Int {
        guard let name = URLComponents(string: database)?.path.dropFirst(), var components = URLComponents(string: database) else {
            throw TestPostgresError.badURL(database)
        }
        components.path = "/postgres"
        let statement = query(String(name))
        return try await withConnection(to: components.string ?? database) { connection in
            let rows = try await connection.query(statement, logger: logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    /// Ends every connection to `database` from the server's side (`pg_terminate_backend`), as a restarted or
    /// failed-over PostgreSQL would; returns how many it ended.
    @discardableResult
    public static func terminateConnections(to database: String) async throws -> Int {
        // Materialized first: in one WHERE, PostgreSQL may call pg_terminate_backend before filtering (its own included).
        try await countOnMaintenanceDatabase(of: database) { name in
            """
            WITH victims AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE datname = \(name) AND pid <> pg_backend_pid())
            SELECT count(*) FROM victims WHERE pg_terminate_backend(pid)
            """
        }
    }

    private static func run(_ sql: String, at base: String) async throws {
        try await PostgresMaintenance.execute(sql, at: base)
    }

    private static let logger = Logger(label: "test-postgres")

    private static func withConnection<T>(to url: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await PostgresMaintenance.withConnection(to: url, body)
    }
}
