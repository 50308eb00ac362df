/// Channels, their members, messages and update logs, and basic groups, written once for both backends (`SQLText`).
enum ChannelSQL {
    static let channelColumns = ChannelColumn.list
    static let memberColumns = ChannelMemberColumn.list
    static let messageColumns = ChannelMessageColumn.list

    enum Channel: SQLText { static let text = "SELECT \(channelColumns) FROM channels WHERE id = ?" }
    /// A writer locks the channel's row: its pts and next message id are the channel's counters.
    enum ChannelForUpdate: SQLText {
        static let text = "SELECT \(channelColumns) FROM channels WHERE id = ? FOR UPDATE"
        static let sqliteText = unlocked
    }
    /// Case-insensitive: SQLite's column compares NOCASE, PostgreSQL has an index on `lower(username)`.
    enum ChannelByUsername: SQLText {
        static let text = "SELECT \(channelColumns) FROM channels WHERE lower(username) = lower(?)"
        static let sqliteText = "SELECT \(channelColumns) FROM channels WHERE username = ?"
    }
    enum MaxChannelID: SQLText { static let text = "SELECT COALESCE(MAX(id), 0) FROM channels" }
    enum UpsertChannel: SQLText { static let text = ChannelColumn.upsert(into: "channels", key: [.id]) }
    enum ChannelSenders: SQLText { static let text = "SELECT DISTINCT from_id FROM channel_messages WHERE channel_id = ? AND id > ? AND id <= ?" }

    enum Member: SQLText { static let text = "SELECT \(memberColumns) FROM channel_members WHERE channel_id = ? AND user_id = ?" }
    enum Memberships: SQLText { static let text = "SELECT \(memberColumns) FROM channel_members WHERE user_id = ? ORDER BY channel_id" }
    enum MemberIDs: SQLText { static let text = "SELECT user_id FROM channel_members WHERE channel_id = ?" }
    enum MemberCount: SQLText { static let text = "SELECT COUNT(*) FROM channel_members WHERE channel_id = ?" }
    enum UpsertMember: SQLText { static let text = ChannelMemberColumn.upsert(into: "channel_members", key: [.channelID, .userID]) }
    enum RemoveMember: SQLText { static let text = "DELETE FROM channel_members WHERE channel_id = ? AND user_id = ?" }

    enum Events: SQLText {
        static let text = "SELECT \(EventColumn.list) FROM channel_events WHERE channel_id = ? AND pts > ? ORDER BY pts LIMIT ?"
    }
    enum AppendEvent: SQLText {
        static let text = "INSERT INTO channel_events (channel_id, \(EventColumn.list)) VALUES (?, \(EventColumn.placeholders))"
    }

    enum Message: SQLText { static let text = "SELECT \(messageColumns) FROM channel_messages WHERE channel_id = ? AND id = ?" }
    enum MessagesNewestFirst: SQLText {
        static let text = "SELECT \(messageColumns) FROM channel_messages WHERE channel_id = ? AND id > ? AND id < ? ORDER BY id DESC LIMIT ? OFFSET ?"
    }
    enum MessagesOldestFirst: SQLText {
        static let text = "SELECT \(messageColumns) FROM channel_messages WHERE channel_id = ? AND id > ? AND id < ? ORDER BY id ASC LIMIT ? OFFSET ?"
    }
    /// Counted from the id index alone, whatever the channel's size.
    enum MessageCount: SQLText {
        static let text = "SELECT COUNT(*) FROM (SELECT 1 FROM channel_messages WHERE channel_id = ? LIMIT ?) AS counted"
        static let sqliteText = indexed("channel_messages", by: "channel_message_ids")
    }
    enum MessageIDNewestFirst: SQLText {
        static let text = "SELECT id FROM channel_messages WHERE channel_id = ? AND id > ? AND id < ? ORDER BY id DESC LIMIT 1 OFFSET ?"
        static let sqliteText = indexed("channel_messages", by: "channel_message_ids")
    }
    enum MessageIDOldestFirst: SQLText {
        static let text = "SELECT id FROM channel_messages WHERE channel_id = ? AND id > ? AND id < ? ORDER BY id ASC LIMIT 1 OFFSET ?"
        static let sqliteText = indexed("channel_messages", by: "channel_message_ids")
    }
    enum LastMessageIDByDate: SQLText { static let text = "SELECT MAX(id) FROM channel_messages WHERE channel_id = ? AND date <= ?" }
    enum UnreadCount: SQLText {
        static let text = "SELECT COUNT(*) FROM channel_messages WHERE channel_id = ? AND id > ? AND from_id != ?"
    }
    enum UpsertMessage: SQLText { static let text = ChannelMessageColumn.upsert(into: "channel_messages", key: [.channelID, .id]) }
    enum DeleteMessage: SQLText { static let text = "DELETE FROM channel_messages WHERE channel_id = ? AND id = ?" }

    enum Chat: SQLText { static let text = "SELECT \(ChatColumn.list) FROM chats WHERE id = ?" }
    enum MaxChatID: SQLText { static let text = "SELECT COALESCE(MAX(id), 0) FROM chats" }
    enum ChatMembers: SQLText {
        static let text = "SELECT \(ChatMemberColumn.list) FROM chat_members WHERE chat_id = ? ORDER BY date, user_id"
    }
    /// Served by the partial index of basic-group rows (so private sends do not pay for it); the literal
    /// `peer_type = 1` lets SQLite prove the index applies.
    enum LinkedCopy: SQLText {
        static let text = """
            SELECT \(MessageColumn.list) FROM messages WHERE owner = ? AND peer_type = 1 AND peer_id = ? AND counterpart_id = ? AND from_id = ?
            """
        static let sqliteText = indexed("messages", by: "chat_messages_by_link")
    }
    enum UpsertChat: SQLText { static let text = ChatColumn.upsert(into: "chats", key: [.id]) }
    enum UpsertChatMember: SQLText { static let text = ChatMemberColumn.upsert(into: "chat_members", key: [.chatID, .userID]) }
    enum RemoveChatMember: SQLText { static let text = "DELETE FROM chat_members WHERE chat_id = ? AND user_id = ?" }
}

extension SQLStatements {
    func channel(id: Int64) throws -> ChannelRecord? {
        let read = { (cells: Cells) in try cells.record(ChannelRecord.self) }
        return locksCounters ? try row(ChannelSQL.ChannelForUpdate.self, id, read: read) : try row(ChannelSQL.Channel.self, id, read: read)
    }

    func channel(username: String) throws -> ChannelRecord? {
        try row(ChannelSQL.ChannelByUsername.self, username) { try $0.record(ChannelRecord.self) }
    }

    func maxChannelID() throws -> Int64 { try integer(ChannelSQL.MaxChannelID.self) }

    func upsert(_ channel: ChannelRecord) throws { try execute(ChannelSQL.UpsertChannel.self, RecordParameters(channel)) }

    func channelSenders(channel: Int64, above: Int32, upTo: Int32) throws -> [Int64] {
        try integers(ChannelSQL.ChannelSenders.self, channel, above, upTo)
    }

    func member(channel: Int64, user: Int64) throws -> ChannelMember? {
        try row(ChannelSQL.Member.self, channel, user) { try $0.record(ChannelMember.self) }
    }

    func memberships(user: Int64) throws -> [ChannelMember] {
        try rows(ChannelSQL.Memberships.self, user) { try $0.record(ChannelMember.self) }
    }

    func memberIDs(channel: Int64) throws -> [Int64] { try integers(ChannelSQL.MemberIDs.self, channel) }

    func memberCount(channel: Int64) throws -> Int { Int(try integer(ChannelSQL.MemberCount.self, channel)) }

    func upsert(_ member: ChannelMember) throws { try execute(ChannelSQL.UpsertMember.self, RecordParameters(member)) }

    func removeMember(channel: Int64, user: Int64) throws { try execute(ChannelSQL.RemoveMember.self, channel, user) }

    func channelEvents(channel: Int64, afterPts: Int32, limit: Int) throws -> [StoredEvent] {
        try rows(ChannelSQL.Events.self, channel, afterPts, limit) { try $0.record(StoredEvent.self) }
    }

    func channelMessage(channel: Int64, id: Int32) throws -> ChannelMessage? {
        try row(ChannelSQL.Message.self, channel, id) { try $0.record(ChannelMessage.self) }
    }

    func channelMessages(channel: Int64, in range: IDRange) throws -> [ChannelMessage] {
        let read = { (cells: Cells) in try cells.record(ChannelMessage.self) }
        return range.newestFirst
            ? try rows(ChannelSQL.MessagesNewestFirst.self, channel, range.above, range.below, range.limit, range.skip, read: read)
            : try rows(ChannelSQL.MessagesOldestFirst.self, channel, range.above, range.below, range.limit, range.skip, read: read)
    }

    func channelMessageID(channel: Int64, in range: IDRange) throws -> Int32? {
        let read = { (cells: Cells) in Int32(truncatingIfNeeded: try cells.int64(at: 0)) }
        return range.newestFirst
            ? try row(ChannelSQL.MessageIDNewestFirst.self, channel, range.above, range.below, range.skip, read: read)
            : try row(ChannelSQL.MessageIDOldestFirst.self, channel, range.above, range.below, range.skip, read: read)
    }

    func channelMessageCount(channel: Int64, upTo limit: Int) throws -> Int { Int(try integer(ChannelSQL.MessageCount.self, channel, limit)) }

    func lastChannelMessageID(channel: Int64, atOrBefore date: Int32) throws -> Int32? {
        try optionalInt32(ChannelSQL.LastMessageIDByDate.self, channel, date)
    }

    func channelUnreadCount(channel: Int64, above id: Int32, viewer: Int64) throws -> Int {
        Int(try integer(ChannelSQL.UnreadCount.self, channel, id, viewer))
    }

    func upsert(_ message: ChannelMessage) throws { try execute(ChannelSQL.UpsertMessage.self, RecordParameters(message)) }

    func deleteChannelMessage(channel: Int64, id: Int32) throws { try execute(ChannelSQL.DeleteMessage.self, channel, id) }

    func chat(id: Int64) throws -> ChatRecord? { try row(ChannelSQL.Chat.self, id) { try $0.record(ChatRecord.self) } }

    func maxChatID() throws -> Int64 { try integer(ChannelSQL.MaxChatID.self) }

    func chatMembers(chat: Int64) throws -> [ChatMember] { try rows(ChannelSQL.ChatMembers.self, chat) { try $0.record(ChatMember.self) } }

    func linkedCopy(owner: Int64, peer: PeerRef, from: Int64, link: Int32) throws -> StoredMessage? {
        guard case let .chat(chat) = peer else { return nil }
        return try row(ChannelSQL.LinkedCopy.self, owner, chat, link, from) { try $0.record(StoredMessage.self) }
    }

    func upsert(_ chat: ChatRecord) throws { try execute(ChannelSQL.UpsertChat.self, RecordParameters(chat)) }

    func upsert(_ member: ChatMember) throws { try execute(ChannelSQL.UpsertChatMember.self, RecordParameters(member)) }

    func removeChatMember(chat: Int64, user: Int64) throws { try execute(ChannelSQL.RemoveChatMember.self, chat, user) }
}
