import MTProto
import TL

extension ChannelsRPC {
    /// `channels.getMessages`: the listed messages of a channel the caller can read.
    enum GetMessages: RPCMethod {
        typealias Function = API.functions.channels.GetMessages

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let (input, ids) = (call.channel, HistoryResults.messageIDs(call.id))
            return try await server.storageRead { tx in
                let (channel, member) = try ChannelAccess.member(input, user: me, in: tx)
                let messages = try ids.compactMap { try tx.channelMessage(channel: channel.id, id: $0) }
                return try HistoryResults.channelMessages(messages, channel: channel, member: member, total: messages.count, me: me, in: tx)
            }

        }
    }
}
