import NIOCore
import PostgresNIO

/// Channels, their members, messages and update logs; basic groups.
extension PostgresTransaction {
    static let channelColumns = ChannelColumn.list

    enum ChannelByID: PostgresSQL { static let sql = "SELECT \(channelColumns) FROM channels WHERE id = $1" }
    /// A writer locks the channel's row: its pts and next message id are the channel's counters.
    enum ChannelByIDForUpdate: PostgresSQL { static let sql = "SELECT \(channelColumns) FROM channels WHERE id = $1 FOR UPDATE" }
    enum ChannelByUsername: PostgresSQL { static let sql = "SELECT \(channelColumns) FROM channels WHERE lower(username) = lower($1)" }
    enum MaxChannelID: PostgresSQL { static let sql = "SELECT COALESCE(MAX(id), 0) FROM channels" }
    enum UpsertChannel: PostgresSQL {
        static let sql = """
            INSERT INTO channels (\(channelColumns)) VALUES (\(ChannelColumn.postgresParameters()))
            ON CONFLICT (id) DO UPDATE SET access_hash = excluded.access_hash, title = excluded.title, about = excluded.about,
                username = excluded.username, broadcast = excluded.broadcast, creator_id = excluded.creator_id, date = excluded.date,
                pts = excluded.pts, last_event_date = excluded.last_event_date, next_message_id = excluded.next_message_id,
                read_outbox_max_id = excluded.read_outbox_max_id, default_banned_rights = excluded.default_banned_rights
            """
    }
    enum ChannelSenders: PostgresSQL {
        static let sql = "SELECT DISTINCT from_id FROM channel_messages WHERE channel_id = $1 AND id > $2 AND id <= $3"
    }

    func channel(id: Int64) throws -> ChannelRecord? {
        let rows = isWrite ? try query(ChannelByIDForUpdate.self, id) : try query(ChannelByID.self, id)
        return try rows.first.map { try $0.record(ChannelRecord.self) }
    }

    func channel(username: String) throws -> ChannelRecord? {
        try query(ChannelByUsername.self, username).first.map { try $0.record(ChannelRecord.self) }
    }

    func maxChannelID() throws -> Int64 {
        try query(MaxChannelID.self).first?.decode(Int64.self) ?? 0
    }

    func upsert(_ channel: ChannelRecord) throws {
        try change(UpsertChannel.self, RecordParameters(channel))
    }

    func channelSenders(channel: Int64, above: Int32, upTo: Int32) throws -> [Int64] {
        try query(ChannelSenders.self, channel, above, upTo).map { try $0.decode(Int64.self) }
    }

    // MARK: members

    static let memberColumns = ChannelMemberColumn.list

    enum Member: PostgresSQL { static let sql = "SELECT \(memberColumns) FROM channel_members WHERE channel_id = $1 AND user_id = $2" }
    enum Memberships: PostgresSQL {
        static let sql = "SELECT \(memberColumns) FROM channel_members WHERE user_id = $1 ORDER BY channel_id"
    }
    enum MemberIDs: PostgresSQL { static let sql = "SELECT user_id FROM channel_members WHERE channel_id = $1" }
    enum MemberCount: PostgresSQL { static let sql = "SELECT COUNT(*) FROM channel_members WHERE channel_id = $1" }
    enum UpsertMember: PostgresSQL {
        static let sql = """
            INSERT INTO channel_members (\(memberColumns)) VALUES (\(ChannelMemberColumn.postgresParameters()))
            ON CONFLICT (channel_id, user_id) DO UPDATE SET role = excluded.role, date = excluded.date,
                read_inbox_max_id = excluded.read_inbox_max_id, admin_rights = excluded.admin_rights,
                admin_rank = excluded.admin_rank, promoted_by = excluded.promoted_by, banned_rights = excluded.banned_rights,
                banned_until = excluded.banned_until, restricted_by = excluded.restricted_by
            """
    }
    enum RemoveMember: PostgresSQL { static let sql = "DELETE FROM channel_members WHERE channel_id = $1 AND user_id = $2" }

    func member(channel: Int64, user: Int64) throws -> ChannelMember? {
        try query(Member.self, channel, user).first.map { try $0.record(ChannelMember.self) }
    }

    func memberships(user: Int64) throws -> [ChannelMember] {
        try query(Memberships.self, user).map { try $0.record(ChannelMember.self) }
    }

    func memberIDs(channel: Int64) throws -> [Int64] {
        try query(MemberIDs.self, channel).map { try $0.decode(Int64.self) }
    }

    func memberCount(channel: Int64) throws -> Int {
        Int(try query(MemberCount.self, channel).first?.decode(Int64.self) ?? 0)
    }

    func upsert(_ member: ChannelMember) throws {
        try change(UpsertMember.self, RecordParameters(member))
    }

    func removeMember(channel: Int64, user: Int64) throws {
        try change(RemoveMember.self, channel, user)
    }

    // MARK: update log

    enum ChannelEvents: PostgresSQL {
        static let sql = "SELECT \(EventColumn.list) FROM channel_events WHERE channel_id = $1 AND pts > $2 ORDER BY pts LIMIT $3"
    }
    enum AppendChannelEvent: PostgresSQL {
        static let sql = "INSERT INTO channel_events (channel_id, \(EventColumn.list)) VALUES ($1, \(EventColumn.postgresParameters(from: 2)))"
    }

    func channelEvents(channel: Int64, afterPts: Int32, limit: Int) throws -> [StoredEvent] {
        try query(ChannelEvents.self, channel, afterPts, Int64(limit)).map { try $0.record(StoredEvent.self) }
    }

    func appendChannelEvent(_ event: StoredEvent, channel: Int64) throws {
        try change(AppendChannelEvent.self, channel, RecordParameters(event))
        memory.log(CommittedEvent(box: .channel(channel), pts: event.pts, ptsCount: event.ptsCount))
    }

    // MARK: messages

    static let channelMessageColumns = ChannelMessageColumn.list

    enum ChannelMessageByID: PostgresSQL {
        static let sql = "SELECT \(channelMessageColumns) FROM channel_messages WHERE channel_id = $1 AND id = $2"
    }
    enum ChannelMessagesNewestFirst: PostgresSQL {
        static let sql = """
            SELECT \(channelMessageColumns) FROM channel_messages WHERE channel_id = $1 AND id > $2 AND id < $3 ORDER BY id DESC LIMIT $4 OFFSET $5
            """
    }
    enum ChannelMessagesOldestFirst: PostgresSQL {
        static let sql = """
            SELECT \(channelMessageColumns) FROM channel_messages WHERE channel_id = $1 AND id > $2 AND id < $3 ORDER BY id ASC LIMIT $4 OFFSET $5
            """
    }
    enum ChannelMessageCount: PostgresSQL {
        static let sql = "SELECT COUNT(*) FROM (SELECT 1 FROM channel_messages WHERE channel_id = $1 LIMIT $2) AS counted"
    }
    enum ChannelMessageIDNewestFirst: PostgresSQL {
        static let sql = "SELECT id FROM channel_messages WHERE channel_id = $1 AND id > $2 AND id < $3 ORDER BY id DESC LIMIT 1 OFFSET $4"
    }
    enum ChannelMessageIDOldestFirst: PostgresSQL {
        static let sql = "SELECT id FROM channel_messages WHERE channel_id = $1 AND id > $2 AND id < $3 ORDER BY id ASC LIMIT 1 OFFSET $4"
    }
    enum LastChannelMessageIDByDate: PostgresSQL {
        static let sql = "SELECT MAX(id) FROM channel_messages WHERE channel_id = $1 AND date <= $2"
    }
    enum ChannelUnreadCount: PostgresSQL {
        static let sql = "SELECT COUNT(*) FROM channel_messages WHERE channel_id = $1 AND id > $2 AND from_id != $3"
    }
    enum UpsertChannelMessage: PostgresSQL {
        static let sql = """
            INSERT INTO channel_messages (\(channelMessageColumns)) VALUES (\(ChannelMessageColumn.postgresParameters()))
            ON CONFLICT (channel_id, id) DO UPDATE SET from_id = excluded.from_id, date = excluded.date, text = excluded.text,
                entities = excluded.entities, edit_date = excluded.edit_date, action = excluded.action, reply_to = excluded.reply_to,
                pinned = excluded.pinned, fwd_header = excluded.fwd_header
            """
    }
    enum DeleteChannelMessage: PostgresSQL { static let sql = "DELETE FROM channel_messages WHERE channel_id = $1 AND id = $2" }

    func channelMessage(channel: Int64, id: Int32) throws -> ChannelMessage? {
        try query(ChannelMessageByID.self, channel, id).first.map { try $0.record(ChannelMessage.self) }
    }

    func channelMessages(channel: Int64, in range: IDRange) throws -> [ChannelMessage] {
        let (limit, skip) = (Int64(range.limit), Int64(range.skip))
        let rows = range.newestFirst ? try query(ChannelMessagesNewestFirst.self, channel, range.above, range.below, limit, skip)
            : try query(ChannelMessagesOldestFirst.self, channel, range.above, range.below, limit, skip)
        return try rows.map { try $0.record(ChannelMessage.self) }
    }

    func channelMessageID(channel: Int64, in range: IDRange) throws -> Int32? {
        let skip = Int64(range.skip)
        let rows = range.newestFirst ? try query(ChannelMessageIDNewestFirst.self, channel, range.above, range.below, skip)
            : try query(ChannelMessageIDOldestFirst.self, channel, range.above, range.below, skip)
        return try rows.first?.decode(Int32.self)
    }

    func channelMessageCount(channel: Int64, upTo limit: Int) throws -> Int {
        Int(try query(ChannelMessageCount.self, channel, Int64(limit)).first?.decode(Int64.self) ?? 0)
    }

    func lastChannelMessageID(channel: Int64, atOrBefore date: Int32) throws -> Int32? {
        try query(LastChannelMessageIDByDate.self, channel, date).first?.decode(Int32?.self)
    }

    func channelUnreadCount(channel: Int64, above id: Int32, viewer: Int64) throws -> Int {
        Int(try query(ChannelUnreadCount.self, channel, id, viewer).first?.decode(Int64.self) ?? 0)
    }

    func upsert(_ message: ChannelMessage) throws {
        try change(UpsertChannelMessage.self, RecordParameters(message))
    }

    func deleteChannelMessage(channel: Int64, id: Int32) throws {
        try change(DeleteChannelMessage.self, channel, id)
    }

    // MARK: basic groups

    enum ChatByID: PostgresSQL { static let sql = "SELECT \(ChatColumn.list) FROM chats WHERE id = $1" }
    enum MaxChatID: PostgresSQL { static let sql = "SELECT COALESCE(MAX(id), 0) FROM chats" }
    enum ChatMembers: PostgresSQL {
        static let sql = "SELECT \(ChatMemberColumn.list) FROM chat_members WHERE chat_id = $1 ORDER BY date, user_id"
    }
    enum LinkedCopy: PostgresSQL {
        static let sql = """
            SELECT \(messageColumns) FROM messages WHERE owner = $1 AND peer_type = 1 AND peer_id = $2 AND counterpart_id = $3 AND from_id = $4
            """
    }
    enum UpsertChat: PostgresSQL {
        static let sql = """
            INSERT INTO chats (\(ChatColumn.list)) VALUES (\(ChatColumn.postgresParameters()))
            ON CONFLICT (id) DO UPDATE SET title = excluded.title, creator_id = excluded.creator_id, date = excluded.date,
                version = excluded.version, default_banned_rights = excluded.default_banned_rights
            """
    }
    enum RemoveChatMember: PostgresSQL { static let sql = "DELETE FROM chat_members WHERE chat_id = $1 AND user_id = $2" }
    enum UpsertChatMember: PostgresSQL {
        static let sql = """
            INSERT INTO chat_members (\(ChatMemberColumn.list)) VALUES (\(ChatMemberColumn.postgresParameters()))
            ON CONFLICT (chat_id, user_id) DO UPDATE SET inviter_id = excluded.inviter_id, date = excluded.date
            """
    }

    func removeChatMember(chat: Int64, user: Int64) throws {
        try change(RemoveChatMember.self, chat, user)
    }

    func chat(id: Int64) throws -> ChatRecord? {
        try query(ChatByID.self, id).first.map { try $0.record(ChatRecord.self) }
    }

    func maxChatID() throws -> Int64 {
        try query(MaxChatID.self).first?.decode(Int64.self) ?? 0
    }

    func chatMembers(chat: Int64) throws -> [ChatMember] {
        try query(ChatMembers.self, chat).map { try $0.record(ChatMember.self) }
    }

    func linkedCopy(owner: Int64, peer: PeerRef, from: Int64, link: Int32) throws -> StoredMessage? {
        guard case let .chat(chat) = peer else { return nil }
        return try query(LinkedCopy.self, owner, chat, link, from).first.map { try $0.record(StoredMessage.self) }
    }

    func upsert(_ chat: ChatRecord) throws {
        try change(UpsertChat.self, RecordParameters(chat))
    }

    func upsert(_ member: ChatMember) throws {
        try change(UpsertChatMember.self, RecordParameters(member))
    }
}
