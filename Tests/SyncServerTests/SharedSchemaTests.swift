import Foundation
import GRDB
import Logging
import SyncTesting
import Testing
@testable import SyncServer

/// One schema version for both backends (`ServerSchema`): stores written at each backend's last own version (SQLite's
/// 10, PostgreSQL's 8: what the builds before the numbers met wrote) upgrade in place with their rows intact, and a
/// step written once creates the same table in both.
struct SharedSchemaTests {
    static let alice = UserRecord(id: 1001, accessHash: 7, phone: "15550001", firstName: "Alice", homeDC: 2)

    @Test func aSQLiteStoreAtItsLastOwnVersionUpgradesInPlace() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.path + "/server.sqlite"
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try SQLiteServerSchema.migrate(db, to: SQLiteServerSchema.lastOwnVersion)
            try db.execute(sql: "INSERT INTO users (id, access_hash, phone, first_name, last_name, home_dc) VALUES (1001, 7, '15550001', 'Alice', '', 2)")
        }
        try old.close()

        let storage = try SQLiteServerStorage(path: path)
        #expect(try await storage.read { try $0.user(id: 1001) } == Self.alice)
        await storage.close()
        let version = try await DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == ServerSchema.version && ServerSchema.version > SQLiteServerSchema.lastOwnVersion)
    }

    @Test(.enabled(if: TestPostgres.url != nil)) func aPostgresStoreAtItsLastOwnVersionUpgradesInPlace() async throws {
        let url = try await TestPostgres.createDatabase()
        let storage = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        try await storage.write { try $0.insert(Self.alice) }
        await storage.close()
        // As the builds before the numbers met left it: their last version, without the tables of the shared steps
        // (11 makes none; 12 the login codes'; 13 the keys'; 14 the statuses'; 15 the session claims'; 16 the files' and
        // the media columns).
        try await TestPostgres.execute("DROP TABLE login_codes, login_events, rsa_keys, auth_keys, user_statuses, session_claims", in: url)
        try await TestPostgres.execute("""
            DROP TABLE uploads, upload_parts, file_contents, file_chunks, media_files, media_sizes, user_file_bytes, profile_photos
            """, in: url)
        for table in ["messages", "channel_messages"] {
            try await TestPostgres.execute("ALTER TABLE \(table) DROP COLUMN media, DROP COLUMN media_kind, DROP COLUMN grouped_id", in: url)
        }
        for table in ["users", "chats", "channels"] { try await TestPostgres.execute("ALTER TABLE \(table) DROP COLUMN photo", in: url) }
        try await TestPostgres.execute("DELETE FROM synccore_schema WHERE version > \(PostgresServerSchema.lastOwnVersion)", in: url)
        try await TestPostgres.execute("INSERT INTO synccore_schema (version) VALUES (\(PostgresServerSchema.lastOwnVersion))", in: url)

        let reopened = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        #expect(try await reopened.read { try $0.user(id: 1001) } == Self.alice)
        await reopened.close()
        try await TestPostgres.execute("""
            DO $$ BEGIN IF (SELECT MAX(version) FROM synccore_schema) <> \(ServerSchema.version) THEN RAISE EXCEPTION 'not upgraded'; END IF; END $$
            """, in: url)
        await TestPostgres.dropDatabase(url)
    }

    /// Every type of a shared step, rendered for each backend, makes a table that keeps what each type holds.
    static let sample: [SchemaStatement] = [
        """
        CREATE TABLE schema_sample (owner {int64} NOT NULL, id {int32} NOT NULL, kind {int16} NOT NULL, flag {bool} NOT NULL,
            name {text} NOT NULL, body {bytes} NOT NULL, PRIMARY KEY (owner, id)) {clustered}
        """,
    ]

    @Test func aSharedStepRendersForSQLite() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            for statement in Self.sample { try db.execute(sql: statement.rendered(for: .sqlite)) }
            try db.execute(sql: "INSERT INTO schema_sample VALUES (?, ?, ?, ?, ?, ?)", arguments: [Int64.max, Int32.min, 2, true, "é", Data([0, 1])])
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM schema_sample"))
            #expect(row[0] as Int64 == Int64.max && row[1] as Int32 == Int32.min && row[3] as Bool && row[4] as String == "é")
            #expect(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'schema_sample'")?.hasSuffix("WITHOUT ROWID") == true)
        }
    }

    @Test(.enabled(if: TestPostgres.url != nil)) func aSharedStepRendersForPostgres() async throws {
        let url = try await TestPostgres.createDatabase()
        for statement in Self.sample { try await TestPostgres.execute(statement.rendered(for: .postgres), in: url) }
        try await TestPostgres.execute("INSERT INTO schema_sample VALUES (9223372036854775807, -2147483648, 2, true, 'é', '\\x0001')", in: url)
        try await TestPostgres.execute("""
            DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM schema_sample WHERE owner = 9223372036854775807 AND flag AND octet_length(body) = 2
                AND pg_typeof(kind) = 'smallint'::regtype) THEN RAISE EXCEPTION 'not kept'; END IF; END $$
            """, in: url)
        await TestPostgres.dropDatabase(url)
    }

    /// `?` placeholders become `$n` in order, never inside a quoted literal or identifier.
    @Test func placeholdersAreNumberedOutsideQuotes() {
        #expect(PostgresDialect.numberingPlaceholders("SELECT a FROM t WHERE b = ? AND c LIKE ? ESCAPE '\\' AND d = '?' AND \"e?\" = ?")
            == "SELECT a FROM t WHERE b = $1 AND c LIKE $2 ESCAPE '\\' AND d = '?' AND \"e?\" = $3")
    }
}
