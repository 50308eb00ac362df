import MTProto
import TL

extension MessagesRPC {
    /// `messages.editChatDefaultBannedRights`: a supergroup's default restrictions (`ChannelRestrictions.editDefaults`),
    /// answered with `updateChannel` and the channel as the caller sees it, and pushed the same way to every member's
    /// sessions, each with the channel as they see it (`UpdatePush.channelChanged`); a basic group's
    /// (`BasicGroupRestrictions.editDefaults`), answered with `updateChatDefaultBannedRights` and the group, which every
    /// member's sessions get with their next seq. Any other peer is `PEER_ID_INVALID`.
    enum EditChatDefaultBannedRights: RPCMethod {
        typealias Function = API.functions.messages.EditChatDefaultBannedRights

        private enum Outcome: Sendable {
            case channel(ChannelRecord, ChannelAudience)
            case chat(ChatRecord, memberCount: Int, told: SequencedUpdate)
        }

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try server.profileRate.admit(user: me, now: server.monotonicNow)   // a basic group's change is a seq event per member
            let (input, rights, date) = (call.peer, call.bannedRights, server.now)
            let outcome = try await server.storageWrite { tx -> Outcome in
                switch try PeerResolution.peer(input, me: me, in: tx) {
                case let .channel(id):
                    return .channel(try ChannelRestrictions.editDefaults(of: id, rights: rights, me: me, in: tx),
                                    try ChannelAudience(channel: id, in: tx))
                case let .chat(id):
                    let (chat, memberCount, told) = try BasicGroupRestrictions.editDefaults(of: id, rights: rights, me: me, date: date, in: tx)
                    return .chat(chat, memberCount: memberCount, told: told)
                case .user:
                    throw RPCError.badRequest("PEER_ID_INVALID")
                }
            }
            switch outcome {
            case let .channel(channel, audience):
                let changed: [API.Update] = [.updateChannel(.init(channelId: channel.id))]
                UpdatePush.channelChanged(changed, channel: channel, members: audience, date: date, server: server, except: context.outlet)
                return .updates(.init(updates: changed, users: [], chats: [ChannelRendering.chat(channel, seenBy: me, in: audience)],
                                      date: date, seq: 0))
            case let .chat(chat, memberCount, told):
                told.push(date: date, server: server)
                return .updates(.init(updates: [told.update], users: [], chats: [ChatRendering.chat(chat, memberCount: memberCount, viewer: me)],
                                      date: date, seq: 0))
            }
        }
    }
}
