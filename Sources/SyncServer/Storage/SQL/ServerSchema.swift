/// The server's schema version: one number for both backends, and the steps after it written once.
///
/// Each backend reached version 11 by a history of its own, kept as it was because stores written then hold it:
/// SQLite's versions 1–10 (`SQLiteServerSchema`) and PostgreSQL's 1–8 (`PostgresServerSchema`), which built the same
/// tables in each backend's types. Version 11 is where the numbers meet; every later step is a list of
/// `SchemaStatement`s, written once and rendered for each backend, so a new table (media, bots) costs one declaration.
/// A store opened by a build that knows an older version than the store's is refused
/// (`ServerStorageError.newerSchema`), whichever backend.
enum ServerSchema {
    /// The version this build writes and reads.
    static var version: Int { firstShared + shared.count - 1 }
    /// The first version both backends number alike.
    static let firstShared = 11

    /// `shared[i]` brings a store to version `firstShared + i`. Never edit a step once released: add one.
    static let shared: [[SchemaStatement]] = [
        // 11: the two histories meet (their tables already match); nothing changes in either.
        [],
        // 12: pending login codes and the events their limits count, in the database: every process of a data
        // center knows a code another sent (`LoginCodes`).
        [
            """
            CREATE TABLE login_codes (hash {text} PRIMARY KEY, phone {text} NOT NULL, code {text} NOT NULL,
                auth_key_id {int64} NOT NULL, expires {int32} NOT NULL, verified {int16} NOT NULL, wrong {int32} NOT NULL) {clustered}
            """,
            "CREATE INDEX login_codes_by_phone ON login_codes (phone)",
            "CREATE INDEX login_codes_by_expiry ON login_codes (expires)",
            """
            CREATE TABLE login_events (kind {int16} NOT NULL, subject {text} NOT NULL, at {int32} NOT NULL, hits {int32} NOT NULL,
                PRIMARY KEY (kind, subject, at)) {clustered}
            """,
            "CREATE INDEX login_events_by_time ON login_events (at)",
        ],
        // 13: the server's RSA key and the auth keys in the database: a process with a data directory of its own
        // serves the clients of its data center (`ServerKeys`). Stores of earlier versions kept them in files of the
        // data directory, imported at the first start (`LegacyKeyFiles`).
        [
            """
            CREATE TABLE rsa_keys (id {int32} PRIMARY KEY, modulus {bytes} NOT NULL, exponent {bytes} NOT NULL,
                private_exponent {bytes} NOT NULL) {clustered}
            """,
            """
            CREATE TABLE auth_keys (dc {int32} NOT NULL, id {int64} NOT NULL, key {bytes} NOT NULL, salt {int64} NOT NULL,
                expires_in {int32} NOT NULL, created_at {int32} NOT NULL, PRIMARY KEY (dc, id)) {clustered}
            """,
        ],
        // 14: users' statuses in the database, so that every process shows them (`PresenceRegistry` caches them).
        [
            """
            CREATE TABLE user_statuses (user_id {int64} PRIMARY KEY, online {bool} NOT NULL, until {int32} NOT NULL,
                origin {int64} NOT NULL) {clustered}
            """,
            "CREATE INDEX user_statuses_by_time ON user_statuses (until)",
        ],
        // 15: which process serves each MTProto session, when several share the database (`SessionClaims`).
        [
            """
            CREATE TABLE session_claims (auth_key_id {int64} NOT NULL, session_id {int64} NOT NULL, origin {int64} NOT NULL,
                claimed_at {int32} NOT NULL, PRIMARY KEY (auth_key_id, session_id)) {clustered}
            """,
            "CREATE INDEX session_claims_by_time ON session_claims (claimed_at)",
        ],
        // 16: files (`Media/`): uploads in progress and their parts (a part's bytes in its row on PostgreSQL, in a file
        // beside the store on SQLite), contents by SHA-256 and their chunks (PostgreSQL), photos and documents with
        // a photo's sizes, a message's media with its kind for the search filters and its album (`grouped_id`), and users'
        // profile photos (the current one on the user's row), and groups' and channels' photos.
        [
            """
            CREATE TABLE uploads (owner {int64} NOT NULL, file_id {int64} NOT NULL, big {bool} NOT NULL, part_size {int32} NOT NULL,
                total_parts {int32} NOT NULL, bytes {int64} NOT NULL, created_at {int32} NOT NULL, PRIMARY KEY (owner, file_id)) {clustered}
            """,
            "CREATE INDEX uploads_by_time ON uploads (created_at)",
            """
            CREATE TABLE upload_parts (owner {int64} NOT NULL, file_id {int64} NOT NULL, part {int32} NOT NULL, size {int32} NOT NULL,
                bytes {bytes} NOT NULL, PRIMARY KEY (owner, file_id, part)) {clustered}
            """,
            """
            CREATE TABLE file_contents (content {bytes} PRIMARY KEY, size {int64} NOT NULL, chunk_size {int32} NOT NULL,
                created_at {int32} NOT NULL) {clustered}
            """,
            """
            CREATE TABLE file_chunks (content {bytes} NOT NULL, chunk {int32} NOT NULL, bytes {bytes} NOT NULL,
                PRIMARY KEY (content, chunk)) {clustered}
            """,
            """
            CREATE TABLE media_files (id {int64} PRIMARY KEY, access_hash {int64} NOT NULL, dc {int32} NOT NULL, owner {int64} NOT NULL,
                kind {int16} NOT NULL, date {int32} NOT NULL, mime {text} NOT NULL, size {int64} NOT NULL, content {bytes} NOT NULL,
                attributes {bytes} NOT NULL, stripped {bytes} NOT NULL, width {int32} NOT NULL, height {int32} NOT NULL) {clustered}
            """,
            "CREATE INDEX media_files_by_owner ON media_files (owner, id)",
            "CREATE TABLE user_file_bytes (owner {int64} PRIMARY KEY, bytes {int64} NOT NULL) {clustered}",
            """
            CREATE TABLE media_sizes (file_id {int64} NOT NULL, type {text} NOT NULL, width {int32} NOT NULL, height {int32} NOT NULL,
                size {int32} NOT NULL, content {bytes} NOT NULL, PRIMARY KEY (file_id, type)) {clustered}
            """,
            "ALTER TABLE messages ADD COLUMN media {bytes}",
            "ALTER TABLE messages ADD COLUMN media_kind {int16} NOT NULL DEFAULT 0",
            "ALTER TABLE channel_messages ADD COLUMN media {bytes}",
            "ALTER TABLE channel_messages ADD COLUMN media_kind {int16} NOT NULL DEFAULT 0",
            "ALTER TABLE messages ADD COLUMN grouped_id {int64}",
            "ALTER TABLE users ADD COLUMN photo {bytes}",
            "ALTER TABLE chats ADD COLUMN photo {bytes}",
            "ALTER TABLE channels ADD COLUMN photo {bytes}",
            """
            CREATE TABLE profile_photos (user_id {int64} NOT NULL, photo_id {int64} NOT NULL, date {int32} NOT NULL,
                PRIMARY KEY (user_id, photo_id)) {clustered}
            """,
            "ALTER TABLE channel_messages ADD COLUMN grouped_id {int64}",
        ],
    ]

    /// The shared steps a store at version `found` (its own backend's number below `firstShared`) runs to reach
    /// `target`, in order.
    static func sharedSteps(from found: Int, to target: Int) -> [[SchemaStatement]] {
        shared.enumerated().filter { index, _ in found < firstShared + index && firstShared + index <= target }.map(\.element)
    }
}

/// One statement of a shared schema step: portable SQL whose column types name what they hold (`{int64}` an id,
/// `{int32}` a counter or date, `{int16}` a small code, `{bool}` a flag, `{text}` text compared as text, `{bytes}`
/// bytes and UTF-8 that may hold a NUL) and whose keyed tables end with `{clustered}`; each backend renders them
/// (`rendered(for:)`).
struct SchemaStatement: Sendable, Equatable, ExpressibleByStringLiteral {
    let text: String

    init(stringLiteral text: String) {
        self.text = text
    }

    func rendered(for dialect: SchemaDialect) -> String {
        dialect.substitutions.reduce(text) { text, pair in text.replacingOccurrences(of: pair.0, with: pair.1) }
    }
}

/// How each backend spells the schema's types.
enum SchemaDialect: Sendable, CaseIterable {
    /// SQLite: integers of any width are INTEGER; tables are clustered on their primary key (`WITHOUT ROWID`), as every
    /// table of its history is.
    case sqlite
    case postgres

    var substitutions: [(String, String)] {
        switch self {
        case .sqlite:
            [("{int64}", "INTEGER"), ("{int32}", "INTEGER"), ("{int16}", "INTEGER"), ("{bool}", "INTEGER"), ("{text}", "TEXT"),
             ("{bytes}", "BLOB"), ("{clustered}", "WITHOUT ROWID")]
        case .postgres:
            [("{int64}", "bigint"), ("{int32}", "integer"), ("{int16}", "smallint"), ("{bool}", "boolean"), ("{text}", "text"),
             ("{bytes}", "bytea"), ("{clustered}", "")]
        }
    }
}
