import MTProto
import TL

extension UpdatesRPC {
    /// `updates.getChannelDifference`: a channel's log from `pts`, or `channelDifferenceTooLong` with its latest
    /// messages.
    enum GetChannelDifference: RPCMethod {
        typealias Function = API.functions.updates.GetChannelDifference

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, pts, limit, tooLong) = (call.channel, call.pts, call.limit, server.configuration.channelTooLongThreshold)
            let filter = try MessageFilter(call.filter)
            let difference = try await server.storageRead { tx in
                let (channel, member) = try ChannelAccess.member(input, user: me, in: tx)
                let isBot = try tx.user(id: me)?.isBot ?? false
                return try ChannelDifference.compute(for: me, isBot: isBot, channel: channel, member: member, fromPts: pts, limit: limit,
                                                     filter: filter, tooLong: tooLong, in: tx)
            }
            ServerMetrics.difference(difference.constructorName)
            return difference

        }
    }
}
