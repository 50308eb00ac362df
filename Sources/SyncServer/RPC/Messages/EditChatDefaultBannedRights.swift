import MTProto
import TL

extension MessagesRPC {
    /// `messages.editChatDefaultBannedRights`: a supergroup's default restrictions (`ChannelRestrictions.editDefaults`),
    /// answered with `updateChannel` and the channel as the caller sees it, and pushed the same way to every member's
    /// sessions, each with the channel as they see it (`UpdatePush.channelChanged`). Basic groups keep no default
    /// restrictions here: `PEER_ID_INVALID`, as for any peer that is not a channel.
    enum EditChatDefaultBannedRights: RPCMethod {
        typealias Function = API.functions.messages.EditChatDefaultBannedRights

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, rights, date) = (call.peer, call.bannedRights, server.now)
            let (channel, audience) = try await server.storageWrite { tx in
                guard case let .channel(id) = try PeerResolution.peer(input, me: me, in: tx) else { throw RPCError.badRequest("PEER_ID_INVALID") }
                return (try ChannelRestrictions.editDefaults(of: id, rights: rights, me: me, in: tx), try ChannelAudience(channel: id, in: tx))
            }
            let changed: [API.Update] = [.updateChannel(.init(channelId: channel.id))]
            UpdatePush.channelChanged(changed, channel: channel, members: audience, date: date, server: server, except: context.outlet)
            return .updates(.init(updates: changed, users: [], chats: [ChannelRendering.chat(channel, seenBy: me, in: audience)],
                                  date: date, seq: 0))
        }
    }
}
