import MTProto
import TL

extension MessagesRPC {
    /// `messages.getHistory`: a page of a private chat, basic group or channel, offsets and limits clamped and done in
    /// SQL.
    enum GetHistory: RPCMethod {
        typealias Function = API.functions.messages.GetHistory

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let input = call.peer
            let paging = HistoryPaging(offsetID: call.offsetId, offsetDate: call.offsetDate, addOffset: call.addOffset,
                                       limit: call.limit, maxID: call.maxId, minID: call.minId)
            return try await server.storageRead { tx in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                if case let .channel(id) = peer {
                    let (channel, member) = try ChannelAccess.membership(of: id, user: me, in: tx)
                    let page = try paging.page(channel: id, in: tx)
                    return try HistoryResults.channelMessages(page, channel: channel, member: member, total: try tx.channelMessageCount(channel: id),
                                               me: me, in: tx)
                }
                let messages = try paging.page(owner: me, peer: peer, in: tx)
                return try HistoryResults.messagesResult(messages, total: try tx.messageCount(owner: me, peer: peer), me: me, in: tx)
            }

        }
    }
}
