import MTProto
import TL

extension ChannelsRPC {
    /// `channels.getChannels`: the channels named, as the caller sees them.
    enum GetChannels: RPCMethod {
        typealias Function = API.functions.channels.GetChannels

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let inputs = call.id
            return try await server.storageRead { tx in
                // Like users.getUsers: what cannot be resolved is left out; a private channel the caller is not in
                // is shown as forbidden.
                .chats(.init(chats: try inputs.compactMap { input -> API.Chat? in
                    guard let channel = try? ChannelAccess.channel(input, in: tx) else { return nil }
                    let member = try tx.member(channel: channel.id, user: me)
                    guard member != nil || channel.username != nil else {
                        return .channelForbidden(.init(broadcast: channel.broadcast, megagroup: !channel.broadcast, id: channel.id,
                                                       accessHash: channel.accessHash, title: channel.title.clamped(toUnits: InputLimits.titleLength)))
                    }
                    return ChannelRendering.chat(channel, member: member, participants: try tx.memberCount(channel: channel.id))
                }))
            }

        }
    }
}
