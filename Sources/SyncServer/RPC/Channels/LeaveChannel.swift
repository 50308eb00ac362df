import MTProto
import TL

extension ChannelsRPC {
    /// `channels.leaveChannel`: membership ends (history access with it); a service message where the leave makes one.
    enum LeaveChannel: RPCMethod {
        typealias Function = API.functions.channels.LeaveChannel

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, date) = (call.channel, server.now)
            let (change, leaver, links) = try await server.storageWrite { tx in
                let change = try ChannelMembership.leave(user: me, channel: input, date: date, in: tx)
                return (change, try tx.user(id: me),
                        try ViewerLinks.forPush(viewers: change.service?.members.ids ?? [], users: [me], server: server, in: tx))
            }
            let channel = change.channel
            if let (service, members) = change.service {
                UpdatePush.channelEvent(service, channel: channel, members: members, sender: leaver, links: links, date: date, server: server,
                                        except: context.outlet)
            }
            let chats = [ChannelRendering.chat(channel, member: nil)]
            UpdatePush.updates([.updateChannel(.init(channelId: channel.id))], chats: chats, to: me, date: date, server: server,
                               except: context.outlet)
            return .updates(.init(updates: [.updateChannel(.init(channelId: channel.id))], users: [], chats: chats, date: date, seq: 0))

        }
    }
}
