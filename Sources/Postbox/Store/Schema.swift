import GRDB

/// The store's tables (WITHOUT ROWID, clustered on their natural keys: measured 1.2–2.3× faster than rowid tables
/// for the lookups and scans Postbox does). Versioned with `PRAGMA user_version`.
enum Schema {
    static let version = 4

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE metadata (key INTEGER PRIMARY KEY, value BLOB NOT NULL);
            CREATE TABLE peers (peer INTEGER PRIMARY KEY, data BLOB NOT NULL);
            CREATE TABLE initialized_peers (peer INTEGER PRIMARY KEY);
            CREATE TABLE messages (
                peer INTEGER NOT NULL, namespace INTEGER NOT NULL, id INTEGER NOT NULL,
                timestamp INTEGER NOT NULL, flags INTEGER NOT NULL, tags INTEGER NOT NULL,
                author INTEGER, text BLOB NOT NULL, attributes BLOB NOT NULL,
                PRIMARY KEY (peer, namespace, id)) WITHOUT ROWID;
            CREATE INDEX messages_by_time ON messages (peer, namespace, timestamp, id);
            CREATE INDEX messages_unsent ON messages (peer, namespace, id) WHERE (flags & 2) != 0;
            CREATE TABLE message_tags (
                peer INTEGER NOT NULL, tag INTEGER NOT NULL, namespace INTEGER NOT NULL, id INTEGER NOT NULL,
                timestamp INTEGER NOT NULL,
                PRIMARY KEY (peer, tag, namespace, timestamp, id)) WITHOUT ROWID;
            CREATE TABLE holes (
                peer INTEGER NOT NULL, namespace INTEGER NOT NULL, space INTEGER NOT NULL,
                upper INTEGER NOT NULL, lower INTEGER NOT NULL,
                PRIMARY KEY (peer, namespace, space, upper)) WITHOUT ROWID;
            CREATE TABLE read_states (
                peer INTEGER NOT NULL, namespace INTEGER NOT NULL,
                max_incoming_read INTEGER NOT NULL, max_outgoing_read INTEGER NOT NULL, unread_count INTEGER NOT NULL,
                PRIMARY KEY (peer, namespace)) WITHOUT ROWID;
            CREATE TABLE chat_list (
                peer INTEGER PRIMARY KEY, top_namespace INTEGER, top_id INTEGER, top_timestamp INTEGER,
                included INTEGER NOT NULL, pinned INTEGER);
            CREATE TABLE channel_states (peer INTEGER PRIMARY KEY, state BLOB NOT NULL);
            CREATE TABLE preferences (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
            CREATE TABLE operation_log (
                peer INTEGER NOT NULL, tag INTEGER NOT NULL, local_index INTEGER NOT NULL,
                merged_index INTEGER NOT NULL, contents BLOB NOT NULL,
                PRIMARY KEY (peer, tag, local_index)) WITHOUT ROWID;
            CREATE UNIQUE INDEX operation_log_merged ON operation_log (tag, merged_index);
            CREATE TABLE operation_log_next_local (peer INTEGER NOT NULL, tag INTEGER NOT NULL, next INTEGER NOT NULL,
                PRIMARY KEY (peer, tag)) WITHOUT ROWID;
            CREATE TABLE operation_log_next_merged (tag INTEGER PRIMARY KEY, next INTEGER NOT NULL);
            """)
        try addContacts(db)
        try addTypedPeers(db)
        try addPeerDetails(db)
        try db.execute(sql: "PRAGMA user_version = \(version)")
    }

    /// Brings a store written by an older build to `version`, in the transaction that opens it.
    static func migrate(_ db: Database, from found: Int) throws {
        if found < 2 { try addContacts(db) }
        if found < 3 { try addTypedPeers(db) }
        if found < 4 { try addPeerDetails(db) }
        try db.execute(sql: "PRAGMA user_version = \(version)")
    }

    /// Version 2: the account's contact list, the users it blocked, and its drafts and notification settings per chat.
    private static func addContacts(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE drafts (peer INTEGER PRIMARY KEY, text TEXT NOT NULL, reply_to INTEGER, date INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE notification_settings (peer INTEGER PRIMARY KEY, mute_until INTEGER, silent INTEGER, show_previews INTEGER)
                WITHOUT ROWID;
            CREATE TABLE contacts (peer INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, mutual INTEGER NOT NULL)
                WITHOUT ROWID;
            CREATE TABLE blocked_peers (peer INTEGER PRIMARY KEY) WITHOUT ROWID;
            """)
    }

    /// Version 3: peers in typed columns (`Peer`), groups' and channels' member lists, and messages' reply and forward
    /// headers in columns of their own. The
    /// peer rows of earlier versions, in the engine's encoding, move to `legacy_peers` for the engine to convert
    /// (`Transaction.legacyPeers`); earlier messages have no headers until stored again.
    private static func addTypedPeers(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE peers RENAME TO legacy_peers;
            CREATE TABLE peers (
                peer INTEGER PRIMARY KEY, kind INTEGER NOT NULL, access_hash INTEGER, name TEXT NOT NULL, last_name TEXT NOT NULL,
                username TEXT, phone TEXT, flags INTEGER NOT NULL, participants INTEGER, admin_rights INTEGER,
                banned_rights INTEGER, presence INTEGER, presence_date INTEGER);
            """)
        for column in MessageHeaderColumns.names { try db.execute(sql: "ALTER TABLE messages ADD COLUMN \(column) INTEGER") }
        try db.execute(sql: """
            CREATE TABLE participants (chat INTEGER NOT NULL, peer INTEGER NOT NULL, role INTEGER NOT NULL, inviter INTEGER,
                                       date INTEGER NOT NULL, PRIMARY KEY (chat, peer)) WITHOUT ROWID;
            """)
    }

    /// Version 4: what the server says of a peer beyond the peer itself — a user's bio (`about`), a group's or
    /// supergroup's default restrictions — and notification settings per kind of chat.
    private static func addPeerDetails(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE peers ADD COLUMN default_banned_rights INTEGER;
            CREATE TABLE peer_about (peer INTEGER PRIMARY KEY, about TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE kind_notification_settings (kind INTEGER PRIMARY KEY, mute_until INTEGER, silent INTEGER, show_previews INTEGER)
                WITHOUT ROWID;
            """)
    }
}
