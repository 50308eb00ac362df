import MTProto
import TL

/// The `messages.Messages` results that history, message lookups and differences share: a page cut to the answer's
/// byte budget, with the users and chats it names.
enum HistoryResults {
    static func messageIDs(_ inputs: [API.InputMessage]) -> [Int32] {
        inputs.compactMap { input in
            if case let .inputMessageID(value) = input { return value.id }
            return nil
        }
    }

    /// Messages of the caller's box with the users (peers and senders) and basic groups they name.
    static func messagesResult(_ page: [StoredMessage], total: Int, me: Int64, in tx: any StorageReader) throws -> API.messages.Messages {
        let messages = HistoryPaging.fitting(page) { $0.text.utf8.count + $0.entities.count }
        let total = messages.count < page.count ? max(total, page.count + 1) : total   // a cut page is a slice
        let rendered = messages.map(TLRendering.message)
        let users = try ViewerLinks.rendered(try self.users(named: messages.map(\.peer) + messages.compactMap { $0.fromID.map(PeerRef.user) },
                                                            me: me, in: tx), viewer: me, in: tx)
        let chats = try ChatRendering.chats(among: messages.map(\.peer), viewer: me, in: tx)
        if messages.count < total {
            return .messagesSlice(.init(count: Int32(total), messages: rendered, topics: [], chats: chats, users: users))
        }
        return .messages(.init(messages: rendered, topics: [], chats: chats, users: users))
    }

    /// The caller and every user among `peers`, once each, for the `users` vector of a result.
    static func users(named peers: [PeerRef], me: Int64, in tx: any StorageReader) throws -> [UserRecord] {
        var ids: [Int64] = [me]
        for case let .user(id) in peers where !ids.contains(id) { ids.append(id) }
        return try ids.compactMap { try tx.user(id: $0) }
    }

    /// `messages.channelMessages` with the channel's pts, the channel, and the senders of the messages.
    static func channelMessages(_ page: [ChannelMessage], channel: ChannelRecord, member: ChannelMember, total: Int, me: Int64,
                                in tx: any StorageReader) throws -> API.messages.Messages {
        let messages = HistoryPaging.fitting(page) { $0.text.utf8.count + $0.entities.count }
        return .channelMessages(.init(
            pts: channel.pts, count: Int32(clamping: total),
            messages: messages.map { ChannelRendering.message($0, viewer: me, broadcast: channel.broadcast) }, topics: [],
            chats: [ChannelRendering.chat(channel, member: member)],
            users: try ViewerLinks.rendered(try senders(of: messages, me: me, in: tx), viewer: me, in: tx)))
    }

    static func senders(of messages: [ChannelMessage], me: Int64, in tx: any StorageReader) throws -> [UserRecord] {
        var ids: [Int64] = [me]
        for message in messages where !ids.contains(message.fromID) { ids.append(message.fromID) }
        return try ids.compactMap { try tx.user(id: $0) }
    }
}
