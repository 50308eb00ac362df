/// The PostgreSQL backend's own schema history, versions 1–8 (`ServerSchema`: from 11 on, steps are written once for
/// both backends): the same tables as the SQLite backend's (`SQLiteServerSchema`) in PostgreSQL's types, versioned in
/// `synccore_schema` and migrated forward by the first server process that opens the database,
/// under an advisory lock so processes started together do not migrate twice. A newer version is refused rather
/// than misread, as on SQLite.
///
/// Text and entities are `bytea` (the bytes clients sent, as SQLite keeps them); usernames are unique
/// case-insensitively through an index on `lower(username)`, as Telegram's are.
enum PostgresServerSchema {
    /// The last version of this backend's own history.
    static let lastOwnVersion = 8
    /// `pg_advisory_lock` key held while migrating ("SYNC" in ASCII).
    static let migrationLock: Int64 = 0x5359_4E43

    /// The statements that bring an empty database to `lastOwnVersion`, one per element (run in one transaction).
    static let steps: [[String]] = [createVersion1, uniqueSends, expectStates, addRepliesAndPins, addProfilesAndSeq,
                                          addContactsAndBlocks, addAdminRights, addBasicGroupDefaults]

    /// Version 2: a `random_id` is logged once per sender, so a batch that skipped the lookup of a retried send
    /// (`PostgresTransaction.looksUpSends`) fails on the index instead of sending twice. Duplicates an older version
    /// may have left keep their newest row, the one its lookups answered with.
    private static let uniqueSends = [
        "DELETE FROM sent_log older USING sent_log newer WHERE older.user_id = newer.user_id AND older.random_id = newer.random_id AND older.id < newer.id",
        "DROP INDEX sent_log_by_random_id",
        "CREATE UNIQUE INDEX sent_log_by_random_id ON sent_log (user_id, random_id)",
    ]

    /// Version 4: replies (by the replied message's id in the same box, or channel) and pinned messages.
    private static let addRepliesAndPins = [
        "ALTER TABLE messages ADD COLUMN reply_to integer",
        "ALTER TABLE channel_messages ADD COLUMN reply_to integer",
        "ALTER TABLE messages ADD COLUMN pinned boolean NOT NULL DEFAULT false",
        "ALTER TABLE channel_messages ADD COLUMN pinned boolean NOT NULL DEFAULT false",
    ]

    /// Version 5: profiles (the bio), the seq log of updates without pts, and dialogs by peer (who is told of a profile
    /// change).
    private static let addProfilesAndSeq = [
        "ALTER TABLE users ADD COLUMN about text NOT NULL DEFAULT ''",
        """
        CREATE TABLE user_seq_events (user_id bigint NOT NULL, seq integer NOT NULL, date integer NOT NULL, body bytea NOT NULL,
            PRIMARY KEY (user_id, seq))
        """,
        "CREATE INDEX dialogs_by_peer ON dialogs (peer_type, peer_id)",
    ]

    /// Version 6: contact lists (and who has whom, for the mutual flag and who is told of a profile change), blocks, the
    /// count of each user's blocks on the user's row, forwarded messages' headers, pinned dialogs, channel bans, and
    /// settings per chat (notifications, drafts).
    private static let addContactsAndBlocks = [
        "ALTER TABLE users ADD COLUMN blocked_count integer NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN fwd_header bytea",
        "ALTER TABLE channel_messages ADD COLUMN fwd_header bytea",
        """
        CREATE TABLE contacts (owner bigint NOT NULL, user_id bigint NOT NULL, first_name text NOT NULL, last_name text NOT NULL,
            phone text NOT NULL, date integer NOT NULL, PRIMARY KEY (owner, user_id))
        """,
        "CREATE INDEX contacts_by_user ON contacts (user_id, owner)",
        "CREATE TABLE blocks (owner bigint NOT NULL, user_id bigint NOT NULL, date integer NOT NULL, PRIMARY KEY (owner, user_id))",
        "CREATE INDEX blocks_by_date ON blocks (owner, date, user_id)",
        """
        CREATE TABLE pinned_dialogs (owner bigint NOT NULL, position integer NOT NULL, peer_type smallint NOT NULL, peer_id bigint NOT NULL,
            PRIMARY KEY (owner, position))
        """,
        """
        CREATE TABLE channel_bans (channel_id bigint NOT NULL, user_id bigint NOT NULL, kicked_by bigint NOT NULL, date integer NOT NULL,
            PRIMARY KEY (channel_id, user_id))
        """,
        "CREATE INDEX channel_members_by_date ON channel_members (channel_id, date)",
        """
        CREATE TABLE peer_settings (owner bigint NOT NULL, kind smallint NOT NULL, scope_type smallint NOT NULL, scope_id bigint NOT NULL,
            value bytea NOT NULL, date integer NOT NULL, PRIMARY KEY (owner, kind, scope_type, scope_id))
        """,
        "CREATE INDEX peer_settings_by_date ON peer_settings (owner, kind, date)",
        "CREATE INDEX user_seq_events_by_date ON user_seq_events (user_id, date, seq)",
        // `contacts.search` by username prefix with LIKE, whatever the database's collation.
        "CREATE INDEX users_by_username_prefix ON users (lower(username) text_pattern_ops)",
        "CREATE INDEX channels_by_username_prefix ON channels (lower(username) text_pattern_ops)",
    ]

    /// Version 7: admins' own rights, rank and promoter, members' own restrictions and supergroups' default ones
    /// (`SQLiteServerSchema.addAdminRights`: 6335 is the standard set admins stored before had).
    private static let addAdminRights = [
        "ALTER TABLE channel_members ADD COLUMN admin_rights bigint NOT NULL DEFAULT 0",
        "ALTER TABLE channel_members ADD COLUMN admin_rank text",
        "ALTER TABLE channel_members ADD COLUMN promoted_by bigint",
        "ALTER TABLE channel_members ADD COLUMN banned_rights bigint NOT NULL DEFAULT 0",
        "ALTER TABLE channel_members ADD COLUMN banned_until integer NOT NULL DEFAULT 0",
        "ALTER TABLE channel_members ADD COLUMN restricted_by bigint",
        "ALTER TABLE channels ADD COLUMN default_banned_rights bigint NOT NULL DEFAULT 0",
        "UPDATE channel_members SET admin_rights = 6335 WHERE role = 1",
        "CREATE INDEX channel_staff_by_date ON channel_members (channel_id, date) WHERE role <> 0",
        "CREATE INDEX channel_standing_by_date ON channel_members (channel_id, date) WHERE (role <> 0 OR banned_rights <> 0)",
    ]

    /// Version 8: a basic group's default restrictions (`SQLiteServerSchema.addBasicGroupDefaults`).
    private static let addBasicGroupDefaults = ["ALTER TABLE chats ADD COLUMN default_banned_rights bigint NOT NULL DEFAULT 0"]

    /// Version 3: the check of the box states a batch took from its process's cache (`BoxStateCache`,
    /// `PostgresTransaction.FlushRows`): given how many of them were found unchanged and how many there are, true, or
    /// an error with SQLSTATE 40001 (serialization failure: the batch runs again). A function, because plain SQL
    /// cannot raise an error on a condition.
    private static let expectStates = [
        """
        CREATE OR REPLACE FUNCTION synccore_expect_states(unchanged bigint, expected integer) RETURNS boolean
        LANGUAGE plpgsql AS $$
        BEGIN
            IF unchanged IS DISTINCT FROM expected THEN
                RAISE EXCEPTION 'box states changed since they were cached: % of % unchanged', unchanged, expected
                    USING ERRCODE = '40001';
            END IF;
            RETURN true;
        END
        $$
        """,
    ]

    private static let createVersion1 = [
        """
        CREATE TABLE users (id bigint PRIMARY KEY, access_hash bigint NOT NULL, phone text NOT NULL UNIQUE,
            first_name text NOT NULL, last_name text NOT NULL, username text, home_dc integer NOT NULL,
            bot boolean NOT NULL DEFAULT false)
        """,
        "CREATE UNIQUE INDEX users_by_username ON users (lower(username))",
        "CREATE TABLE authorizations (auth_key_id bigint PRIMARY KEY, user_id bigint NOT NULL)",
        """
        CREATE TABLE user_states (user_id bigint PRIMARY KEY, pts integer NOT NULL, qts integer NOT NULL, seq integer NOT NULL,
            date integer NOT NULL, next_message_id integer NOT NULL)
        """,
        """
        CREATE TABLE messages (owner bigint NOT NULL, id integer NOT NULL, peer_type smallint NOT NULL, peer_id bigint NOT NULL,
            from_id bigint, out boolean NOT NULL, date integer NOT NULL, text bytea NOT NULL, entities bytea NOT NULL,
            edit_date integer, counterpart_id integer, action bytea, PRIMARY KEY (owner, id))
        """,
        "CREATE INDEX messages_by_dialog ON messages (owner, peer_type, peer_id, id)",
        "CREATE INDEX chat_messages_by_link ON messages (owner, peer_id, counterpart_id) WHERE peer_type = 1",
        """
        CREATE TABLE user_events (user_id bigint NOT NULL, pts integer NOT NULL, pts_count integer NOT NULL, date integer NOT NULL,
            body bytea NOT NULL, PRIMARY KEY (user_id, pts))
        """,
        """
        CREATE TABLE dialogs (owner bigint NOT NULL, peer_type smallint NOT NULL, peer_id bigint NOT NULL, top_message integer NOT NULL,
            top_date integer NOT NULL, read_inbox_max_id integer NOT NULL, read_outbox_max_id integer NOT NULL,
            unread_count integer NOT NULL, PRIMARY KEY (owner, peer_type, peer_id))
        """,
        "CREATE INDEX dialogs_by_date ON dialogs (owner, top_date, top_message)",
        """
        CREATE TABLE sent_log (id bigserial PRIMARY KEY, user_id bigint NOT NULL, random_id bigint NOT NULL, message_id integer NOT NULL,
            pts integer NOT NULL, date integer NOT NULL, channel_id bigint NOT NULL)
        """,
        "CREATE INDEX sent_log_by_random_id ON sent_log (user_id, random_id)",
        """
        CREATE TABLE channels (id bigint PRIMARY KEY, access_hash bigint NOT NULL, title text NOT NULL, about text NOT NULL,
            username text, broadcast boolean NOT NULL, creator_id bigint NOT NULL, date integer NOT NULL, pts integer NOT NULL,
            last_event_date integer NOT NULL, next_message_id integer NOT NULL, read_outbox_max_id integer NOT NULL)
        """,
        "CREATE UNIQUE INDEX channels_by_username ON channels (lower(username))",
        """
        CREATE TABLE channel_members (channel_id bigint NOT NULL, user_id bigint NOT NULL, role smallint NOT NULL, date integer NOT NULL,
            read_inbox_max_id integer NOT NULL, PRIMARY KEY (channel_id, user_id))
        """,
        "CREATE INDEX channel_members_by_user ON channel_members (user_id, channel_id)",
        """
        CREATE TABLE channel_messages (channel_id bigint NOT NULL, id integer NOT NULL, from_id bigint NOT NULL, date integer NOT NULL,
            text bytea NOT NULL, entities bytea NOT NULL, edit_date integer, action bytea NOT NULL, PRIMARY KEY (channel_id, id))
        """,
        """
        CREATE TABLE channel_events (channel_id bigint NOT NULL, pts integer NOT NULL, pts_count integer NOT NULL, date integer NOT NULL,
            body bytea NOT NULL, PRIMARY KEY (channel_id, pts))
        """,
        """
        CREATE TABLE chats (id bigint PRIMARY KEY, title text NOT NULL, creator_id bigint NOT NULL, date integer NOT NULL,
            version integer NOT NULL)
        """,
        """
        CREATE TABLE chat_members (chat_id bigint NOT NULL, user_id bigint NOT NULL, inviter_id bigint NOT NULL, date integer NOT NULL,
            PRIMARY KEY (chat_id, user_id))
        """,
    ]
}
