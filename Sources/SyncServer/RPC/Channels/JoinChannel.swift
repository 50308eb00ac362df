import MTProto
import TL

extension ChannelsRPC {
    /// `channels.joinChannel`: membership, `updateChannel` to the caller's sessions, and a service message
    /// where the join makes one.
    enum JoinChannel: RPCMethod {
        typealias Function = API.functions.channels.JoinChannel

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, date) = (call.channel, server.now)
            let (change, joiner, links) = try await server.storageWrite { tx in
                let change = try ChannelMembership.join(user: me, channel: input, date: date, in: tx)
                return (change, try tx.user(id: me),
                        try ViewerLinks.forPush(viewers: change.service?.members.ids ?? [], users: [me], server: server, in: tx))
            }
            let channel = change.channel
            let chats = [ChannelRendering.chat(channel, member: change.member)]
            UpdatePush.updates([.updateChannel(.init(channelId: channel.id))], chats: chats, to: me, date: date, server: server,
                               except: context.outlet)
            var updates: [API.Update] = [.updateChannel(.init(channelId: channel.id))]
            if let (service, members) = change.service {
                UpdatePush.channelEvent(service, channel: channel, members: members, sender: joiner, links: links, date: date, server: server,
                                        except: context.outlet)
                updates.append(ChannelRendering.event(service, viewer: me, broadcast: channel.broadcast))
            }
            return .chatInviteJoinResultOk(.init(updates: .updates(.init(
                updates: updates, users: joiner.map { [TLRendering.user($0, viewer: me)] } ?? [], chats: chats, date: date, seq: 0))))

        }
    }
}
