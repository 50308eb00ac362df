@testable import SyncServer
import Testing

/// The column lists both backends select by: the names the schemas use, in the order rows are read.
struct RecordColumnsTests {
    @Test func namesAreTheSchemasSnakeCaseInDeclarationOrder() {
        #expect(UserColumn.list == "id, access_hash, phone, first_name, last_name, username, home_dc, bot, about, blocked_count, photo")
        #expect(MessageColumn.list == "owner, id, peer_type, peer_id, from_id, out, date, text, entities, edit_date, counterpart_id, action, reply_to, pinned, fwd_header, media, media_kind, grouped_id")
        #expect(DialogColumn.list == "owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id, read_outbox_max_id, unread_count")
        #expect(ChannelColumn.list
            == "id, access_hash, title, about, username, broadcast, creator_id, date, pts, last_event_date, next_message_id, read_outbox_max_id, default_banned_rights, photo")
        #expect(ChannelMemberColumn.list == "channel_id, user_id, role, date, read_inbox_max_id, admin_rights, admin_rank, promoted_by, banned_rights, banned_until, restricted_by")
        #expect(ChannelMessageColumn.list == "channel_id, id, from_id, date, text, entities, edit_date, action, reply_to, pinned, fwd_header, media, media_kind, grouped_id")
        #expect(UserStateColumn.list == "pts, qts, seq, date, next_message_id")
        #expect(EventColumn.list == "pts, pts_count, date, body")
        #expect(SentColumn.list == "message_id, pts, date, channel_id")
        #expect(ChatColumn.list == "id, title, creator_id, date, version, default_banned_rights, photo")
        #expect(ChatMemberColumn.list == "chat_id, user_id, inviter_id, date")
    }

    @Test func parametersMatchTheColumnCount() {
        #expect(ChatColumn.placeholders == "?, ?, ?, ?, ?, ?, ?")
        #expect(PostgresDialect.numberingPlaceholders("VALUES (?, \(EventColumn.placeholders))") == "VALUES ($1, $2, $3, $4, $5)")
    }

    /// An upsert replaces every column but the key, as SQLite's `INSERT OR REPLACE` did.
    @Test func upsertsSetEveryColumnButTheKey() {
        #expect(ContactColumn.upsert(into: "contacts", key: [.owner, .userID]) == """
            INSERT INTO contacts (owner, user_id, first_name, last_name, phone, date) VALUES (?, ?, ?, ?, ?, ?) \
            ON CONFLICT (owner, user_id) DO UPDATE SET first_name = excluded.first_name, last_name = excluded.last_name, \
            phone = excluded.phone, date = excluded.date
            """)
    }
}
