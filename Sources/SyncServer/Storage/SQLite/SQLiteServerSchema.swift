import GRDB

/// The SQLite backend's own schema history, versions 1–10 (`ServerSchema`: from 11 on, steps are written once for both
/// backends), versioned by `PRAGMA user_version` and migrated forward in one transaction when a data directory
/// written by an older build is opened (a newer one is refused rather than misread).
enum SQLiteServerSchema {
    /// The last version of this backend's own history.
    static let lastOwnVersion = 10

    /// Migrates to `target` (the current version; tests build older versions to check the steps).
    static func migrate(_ db: Database, to target: Int = ServerSchema.version) throws {
        let found = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard found <= ServerSchema.version else { throw ServerStorageError.newerSchema(found: found, supported: ServerSchema.version) }
        let steps = [createVersion1, addChannels, addBasicGroups, logSends, addRepliesAndPins, addProfilesAndSeq,
                     addContactsAndBlocks, addAdminRights, addBasicGroupDefaults, indexChannelMessageIDs]
        for (index, step) in steps.enumerated() where found <= index && index < min(target, lastOwnVersion) { try step(db) }
        for step in ServerSchema.sharedSteps(from: found, to: target) {
            for statement in step { try db.execute(sql: statement.rendered(for: .sqlite)) }
        }
        if found < target { try db.execute(sql: "PRAGMA user_version = \(target)") }
    }

    /// Users, authorizations, per-user boxes with their logs and messages, dialogs, idempotent sends.
    private static func createVersion1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE users (id INTEGER PRIMARY KEY, access_hash INTEGER NOT NULL, phone TEXT NOT NULL UNIQUE,
                first_name TEXT NOT NULL, last_name TEXT NOT NULL, username TEXT UNIQUE COLLATE NOCASE, home_dc INTEGER NOT NULL);
            CREATE TABLE authorizations (auth_key_id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL);
            CREATE TABLE user_states (user_id INTEGER PRIMARY KEY, pts INTEGER NOT NULL, qts INTEGER NOT NULL,
                seq INTEGER NOT NULL, date INTEGER NOT NULL, next_message_id INTEGER NOT NULL);
            CREATE TABLE messages (owner INTEGER NOT NULL, id INTEGER NOT NULL, peer_type INTEGER NOT NULL,
                peer_id INTEGER NOT NULL, from_id INTEGER, out INTEGER NOT NULL, date INTEGER NOT NULL, text BLOB NOT NULL,
                entities BLOB NOT NULL, edit_date INTEGER, counterpart_id INTEGER, PRIMARY KEY (owner, id)) WITHOUT ROWID;
            CREATE INDEX messages_by_dialog ON messages (owner, peer_type, peer_id, id);
            CREATE TABLE user_events (user_id INTEGER NOT NULL, pts INTEGER NOT NULL, pts_count INTEGER NOT NULL,
                date INTEGER NOT NULL, body BLOB NOT NULL, PRIMARY KEY (user_id, pts)) WITHOUT ROWID;
            CREATE TABLE dialogs (owner INTEGER NOT NULL, peer_type INTEGER NOT NULL, peer_id INTEGER NOT NULL,
                top_message INTEGER NOT NULL, top_date INTEGER NOT NULL, read_inbox_max_id INTEGER NOT NULL,
                read_outbox_max_id INTEGER NOT NULL, unread_count INTEGER NOT NULL,
                PRIMARY KEY (owner, peer_type, peer_id)) WITHOUT ROWID;
            CREATE INDEX dialogs_by_date ON dialogs (owner, top_date, top_message);
            CREATE TABLE sent_random_ids (user_id INTEGER NOT NULL, random_id INTEGER NOT NULL, message_id INTEGER NOT NULL,
                pts INTEGER NOT NULL, date INTEGER NOT NULL, PRIMARY KEY (user_id, random_id)) WITHOUT ROWID;
            """)
    }

    /// Channels with members, one message sequence and one update log each; bots; sends into channels.
    private static func addChannels(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE users ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE sent_random_ids ADD COLUMN channel_id INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE channels (id INTEGER PRIMARY KEY, access_hash INTEGER NOT NULL, title TEXT NOT NULL, about TEXT NOT NULL,
                username TEXT UNIQUE COLLATE NOCASE, broadcast INTEGER NOT NULL, creator_id INTEGER NOT NULL, date INTEGER NOT NULL,
                pts INTEGER NOT NULL, last_event_date INTEGER NOT NULL, next_message_id INTEGER NOT NULL);
            CREATE TABLE channel_members (channel_id INTEGER NOT NULL, user_id INTEGER NOT NULL, role INTEGER NOT NULL,
                date INTEGER NOT NULL, read_inbox_max_id INTEGER NOT NULL, PRIMARY KEY (channel_id, user_id)) WITHOUT ROWID;
            CREATE INDEX channel_members_by_user ON channel_members (user_id, channel_id);
            CREATE TABLE channel_messages (channel_id INTEGER NOT NULL, id INTEGER NOT NULL, from_id INTEGER NOT NULL,
                date INTEGER NOT NULL, text BLOB NOT NULL, entities BLOB NOT NULL, edit_date INTEGER, action BLOB NOT NULL,
                PRIMARY KEY (channel_id, id)) WITHOUT ROWID;
            CREATE TABLE channel_events (channel_id INTEGER NOT NULL, pts INTEGER NOT NULL, pts_count INTEGER NOT NULL,
                date INTEGER NOT NULL, body BLOB NOT NULL, PRIMARY KEY (channel_id, pts)) WITHOUT ROWID;
            """)
    }

    /// Basic groups and their members; service messages (a group's creation) in the per-user boxes; supergroups'
    /// read-outbox marks.
    private static func addBasicGroups(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE messages ADD COLUMN action BLOB;
            ALTER TABLE channels ADD COLUMN read_outbox_max_id INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE chats (id INTEGER PRIMARY KEY, title TEXT NOT NULL, creator_id INTEGER NOT NULL, date INTEGER NOT NULL,
                version INTEGER NOT NULL);
            CREATE TABLE chat_members (chat_id INTEGER NOT NULL, user_id INTEGER NOT NULL, inviter_id INTEGER NOT NULL,
                date INTEGER NOT NULL, PRIMARY KEY (chat_id, user_id)) WITHOUT ROWID;
            CREATE INDEX chat_messages_by_link ON messages (owner, peer_id, counterpart_id) WHERE peer_type = 1;
            """)
    }

    /// Replies (the replied message's id in the same box, or channel) and pinned messages.
    private static func addRepliesAndPins(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE messages ADD COLUMN reply_to INTEGER;
            ALTER TABLE channel_messages ADD COLUMN reply_to INTEGER;
            ALTER TABLE messages ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE channel_messages ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
            """)
    }

    /// Profiles (the bio), the seq log of updates without pts, and dialogs by peer (who is told of a profile change).
    private static func addProfilesAndSeq(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE users ADD COLUMN about TEXT NOT NULL DEFAULT '';
            CREATE TABLE user_seq_events (user_id INTEGER NOT NULL, seq INTEGER NOT NULL, date INTEGER NOT NULL, body BLOB NOT NULL,
                PRIMARY KEY (user_id, seq)) WITHOUT ROWID;
            CREATE INDEX dialogs_by_peer ON dialogs (peer_type, peer_id);
            """)
    }

    /// Contact lists (and who has whom, for the mutual flag and who is told of a profile change), blocks, the count
    /// of each user's blocks on the user's row, forwarded messages' headers, pinned dialogs, channel bans, and settings
    /// per chat (notifications, drafts).
    private static func addContactsAndBlocks(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE users ADD COLUMN blocked_count INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE messages ADD COLUMN fwd_header BLOB;
            ALTER TABLE channel_messages ADD COLUMN fwd_header BLOB;
            CREATE TABLE contacts (owner INTEGER NOT NULL, user_id INTEGER NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL,
                phone TEXT NOT NULL, date INTEGER NOT NULL, PRIMARY KEY (owner, user_id)) WITHOUT ROWID;
            CREATE INDEX contacts_by_user ON contacts (user_id, owner);
            CREATE TABLE blocks (owner INTEGER NOT NULL, user_id INTEGER NOT NULL, date INTEGER NOT NULL,
                PRIMARY KEY (owner, user_id)) WITHOUT ROWID;
            CREATE INDEX blocks_by_date ON blocks (owner, date, user_id);
            CREATE TABLE pinned_dialogs (owner INTEGER NOT NULL, position INTEGER NOT NULL, peer_type INTEGER NOT NULL,
                peer_id INTEGER NOT NULL, PRIMARY KEY (owner, position)) WITHOUT ROWID;
            CREATE TABLE channel_bans (channel_id INTEGER NOT NULL, user_id INTEGER NOT NULL, kicked_by INTEGER NOT NULL,
                date INTEGER NOT NULL, PRIMARY KEY (channel_id, user_id)) WITHOUT ROWID;
            CREATE INDEX channel_members_by_date ON channel_members (channel_id, date);
            CREATE TABLE peer_settings (owner INTEGER NOT NULL, kind INTEGER NOT NULL, scope_type INTEGER NOT NULL, scope_id INTEGER NOT NULL,
                value BLOB NOT NULL, date INTEGER NOT NULL, PRIMARY KEY (owner, kind, scope_type, scope_id)) WITHOUT ROWID;
            CREATE INDEX peer_settings_by_date ON peer_settings (owner, kind, date);
            CREATE INDEX user_seq_events_by_date ON user_seq_events (user_id, date, seq);
            """)
    }

    /// Admins' own rights (the `flags` word of `chatAdminRights`), rank and promoter; members' own restrictions (the
    /// `flags` word of `chatBannedRights`, until when, by whom) and a supergroup's default ones. Admins stored before
    /// had the standard rights (`AdminRights.standard`, 6335, written out: the step must not change with the code),
    /// and the creator promoted them. The channel's standing (creator, admins, restricted members) is read for every
    /// channel push.
    private static func addAdminRights(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE channel_members ADD COLUMN admin_rights INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE channel_members ADD COLUMN admin_rank TEXT;
            ALTER TABLE channel_members ADD COLUMN promoted_by INTEGER;
            ALTER TABLE channel_members ADD COLUMN banned_rights INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE channel_members ADD COLUMN banned_until INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE channel_members ADD COLUMN restricted_by INTEGER;
            ALTER TABLE channels ADD COLUMN default_banned_rights INTEGER NOT NULL DEFAULT 0;
            UPDATE channel_members SET admin_rights = 6335 WHERE role = 1;
            CREATE INDEX channel_staff_by_date ON channel_members (channel_id, date) WHERE role <> 0;
            CREATE INDEX channel_standing_by_date ON channel_members (channel_id, date) WHERE (role <> 0 OR banned_rights <> 0);
            """)
    }

    /// A narrow index of each channel's message ids: a history page that skips rows (`add_offset`) and the bounded
    /// message count read it instead of the table, whose rows hold the texts (a skip over 20,000 posts of 4 KB read
    /// their pages, 37 ms; the index alone takes about 1 ms).
    private static func indexChannelMessageIDs(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX channel_message_ids ON channel_messages (channel_id, id)")
    }

    /// A basic group's default restrictions (the `flags` word of `chatBannedRights`; none for the groups stored before).
    private static func addBasicGroupDefaults(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE chats ADD COLUMN default_banned_rights INTEGER NOT NULL DEFAULT 0")
    }

    /// Idempotent sends as an append-only log read through `RecentSends` (a table keyed by `random_id` wrote a random
    /// page per send). The index on `user_id` also holds the rowid, so each user's rows are read newest first.
    private static func logSends(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE sent_log (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, random_id INTEGER NOT NULL,
                message_id INTEGER NOT NULL, pts INTEGER NOT NULL, date INTEGER NOT NULL, channel_id INTEGER NOT NULL);
            CREATE INDEX sent_log_by_user ON sent_log (user_id);
            INSERT INTO sent_log (user_id, random_id, message_id, pts, date, channel_id)
                SELECT user_id, random_id, message_id, pts, date, channel_id FROM sent_random_ids ORDER BY user_id, date, message_id;
            DROP TABLE sent_random_ids;
            """)
    }
}
