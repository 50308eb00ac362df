import MTProto
import TL

extension MessagesRPC {
    /// `messages.getHistory`: a page of a private chat, basic group or channel (`HistoryPaging`). Its `count` is exact up
    /// to `countedExactly` messages and read from the chat's id index; a larger chat's is an estimate marked `inexact`
    /// (a channel's newest id), so no page reads the whole chat.
    enum GetHistory: RPCMethod {
        typealias Function = API.functions.messages.GetHistory
        static let countedExactly = 10_000

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let input = call.peer
            let paging = try HistoryPaging(offsetID: call.offsetId, offsetDate: call.offsetDate, addOffset: call.addOffset,
                                           limit: call.limit, maxID: call.maxId, minID: call.minId)
            return try await server.storageRead { tx in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                if case let .channel(id) = peer {
                    let (channel, member) = try ChannelAccess.membership(of: id, user: me, in: tx)
                    let page = try paging.page(channel: id, in: tx)
                    let counted = try tx.channelMessageCount(channel: id, upTo: countedExactly + 1)
                    let total = counted > countedExactly ? max(counted, Int(channel.nextMessageID) - 1) : counted
                    return try HistoryResults.channelMessages(page, channel: channel, member: member, total: total,
                                                              inexact: counted > countedExactly, me: me, in: tx)
                }
                let messages = try paging.page(owner: me, peer: peer, in: tx)
                let counted = try tx.messageCount(owner: me, peer: peer, upTo: countedExactly + 1)
                return try HistoryResults.messagesResult(messages, total: counted, inexact: counted > countedExactly, me: me, in: tx)
            }

        }
    }
}
