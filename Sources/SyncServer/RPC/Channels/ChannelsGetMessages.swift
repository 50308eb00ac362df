import MTProto
import TL

extension ChannelsRPC {
    /// `channels.getMessages`: the listed messages of a channel the caller can read, by id, as replied to, or its newest
    /// pin (`HistoryResults.messageIDs`).
    enum GetMessages: RPCMethod {
        typealias Function = API.functions.channels.GetMessages

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let (input, inputs) = (call.channel, call.id)
            return try await server.storageRead { tx in
                let (channel, member) = try ChannelAccess.member(input, user: me, in: tx)
                let ids = try HistoryResults.messageIDs(inputs, replyTarget: { try tx.channelMessage(channel: channel.id, id: $0)?.replyTo },
                                                        pinned: { try Pins.newest(channel: channel.id, in: tx) })
                let messages = try ids.compactMap { try tx.channelMessage(channel: channel.id, id: $0) }
                return try HistoryResults.channelMessages(messages, channel: channel, member: member, total: messages.count, me: me, in: tx)
            }

        }
    }
}
