import MTProto
import TL

/// `messages.getHistory`, `messages.getMessages` and `messages.getDialogs` over private dialogs, basic groups and
/// channels.
enum HistoryHandlers {
    static func register(in router: inout RPCRouter, server: ServerContext) {
        router.on(API.functions.messages.GetHistory.self) { call, context throws(RPCError) in
            let me = try context.user()
            let input = call.peer
            let paging = HistoryPaging(offsetID: call.offsetId, offsetDate: call.offsetDate, addOffset: call.addOffset,
                                       limit: call.limit, maxID: call.maxId, minID: call.minId)
            return try await server.storageRead { tx in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                if case let .channel(id) = peer {
                    let (channel, member) = try ChannelAccess.membership(of: id, user: me, in: tx)
                    let page = try paging.page(channel: id, in: tx)
                    return try channelMessages(page, channel: channel, member: member, total: try tx.channelMessageCount(channel: id),
                                               me: me, in: tx)
                }
                let messages = try paging.page(owner: me, peer: peer, in: tx)
                return try messagesResult(messages, total: try tx.messageCount(owner: me, peer: peer), me: me, in: tx)
            }
        }

        router.on(API.functions.messages.GetMessages.self) { call, context throws(RPCError) in
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let ids = messageIDs(call.id)
            return try await server.storageRead { tx in
                let messages = try ids.compactMap { try tx.message(owner: me, id: $0) }
                return try messagesResult(messages, total: messages.count, me: me, in: tx)
            }
        }

        router.on(API.functions.channels.GetMessages.self) { call, context throws(RPCError) in
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let (input, ids) = (call.channel, messageIDs(call.id))
            return try await server.storageRead { tx in
                let (channel, member) = try ChannelAccess.member(input, user: me, in: tx)
                let messages = try ids.compactMap { try tx.channelMessage(channel: channel.id, id: $0) }
                return try channelMessages(messages, channel: channel, member: member, total: messages.count, me: me, in: tx)
            }
        }

        router.on(API.functions.messages.GetDialogs.self) { call, context throws(RPCError) in
            let me = try context.user()
            let limit = Int(max(1, min(call.limit, 100)))
            let before: (date: Int32, topMessage: Int32)? = call.offsetDate > 0 ? (call.offsetDate, call.offsetId > 0 ? call.offsetId : 0) : nil
            return try await server.storageRead { tx in try DialogList.page(for: me, before: before, limit: limit, in: tx) }
        }
    }

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
        let users = try self.users(named: messages.map(\.peer) + messages.compactMap { $0.fromID.map(PeerRef.user) }, me: me, in: tx)
            .map { TLRendering.user($0, viewer: me) }
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
            users: try senders(of: messages, me: me, in: tx).map { TLRendering.user($0, viewer: me) }))
    }

    static func senders(of messages: [ChannelMessage], me: Int64, in tx: any StorageReader) throws -> [UserRecord] {
        var ids: [Int64] = [me]
        for message in messages where !ids.contains(message.fromID) { ids.append(message.fromID) }
        return try ids.compactMap { try tx.user(id: $0) }
    }
}
