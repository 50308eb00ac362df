import MTProto
import TL

extension ChannelsRPC {
    /// `channels.deleteMessages`: one channel event (next channel pts), pushed to the members.
    enum DeleteMessages: RPCMethod {
        typealias Function = API.functions.channels.DeleteMessages

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let (input, ids, date) = (call.channel, call.id, server.now)
            let change = try await server.storageWrite { tx in
                let channel = try ChannelAccess.channel(input, in: tx)
                return try ChannelMessaging.delete(by: me, channel: channel.id, ids: ids, date: date, in: tx)
            }
            if let update = change.update {
                UpdatePush.channelEvent(update, channel: change.channel, members: change.members, sender: nil, links: .none, date: date,
                                        server: server, except: context.outlet)
            }
            return .affectedMessages(.init(pts: change.pts, ptsCount: change.ptsCount))

        }
    }
}
