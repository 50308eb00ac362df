import MTProto
import TL

extension ChannelsRPC {
    /// `channels.createChannel`: a broadcast channel or supergroup with the caller as creator.
    enum CreateChannel: RPCMethod {
        typealias Function = API.functions.channels.CreateChannel

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let title = try InputLimits.title(call.title)
            let about = try InputLimits.about(call.about)
            guard call.broadcast != call.megagroup else { throw .badRequest("CHANNEL_TYPE_INVALID") }
            let (broadcast, date) = (call.broadcast, server.now)
            let accessHash = server.random { Int64.random(in: Int64.min...Int64.max, using: &$0) }
            let (channel, created, user) = try await server.storageWrite { tx in
                let (channel, created) = try ChannelMembership.create(by: me, title: title, about: about, broadcast: broadcast,
                                                                       accessHash: accessHash, date: date, in: tx)
                return (channel, created, try tx.user(id: me))
            }
            let creator = ChannelMember(channelID: channel.id, userID: me, role: .creator, date: date)
            let chats = [ChannelRendering.chat(channel, member: creator)]
            let logged = API.Update.updateNewChannelMessage(.init(message: ChannelRendering.logged(created), pts: 1, ptsCount: 1))
            UpdatePush.updates([.updateChannel(.init(channelId: channel.id))], chats: chats, to: me, date: date, server: server,
                               except: context.outlet)
            return .updates(.init(
                updates: [.updateChannel(.init(channelId: channel.id)), ChannelRendering.event(logged, viewer: me, broadcast: broadcast)],
                users: user.map { [TLRendering.user($0, viewer: me)] } ?? [], chats: chats, date: date, seq: 0))

        }
    }
}
