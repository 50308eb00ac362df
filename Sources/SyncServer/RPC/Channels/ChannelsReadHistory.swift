import MTProto
import TL

extension ChannelsRPC {
    /// `channels.readHistory`: moves the caller's read mark in a channel: `updateReadChannelInbox` to the
    /// caller's other sessions and `updateReadChannelOutbox` to the senders whose messages became read.
    enum ReadHistory: RPCMethod {
        typealias Function = API.functions.channels.ReadHistory

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, maxID) = (call.channel, call.maxId)
            let read = try await server.storageWrite { tx in
                let channel = try ChannelAccess.channel(input, in: tx)
                return try ChannelMessaging.read(by: me, channel: channel.id, maxID: maxID, in: tx)
            }
            if let read {
                let channel = read.channel
                UpdatePush.single(.updateReadChannelInbox(.init(channelId: channel.id, maxId: read.member.readInboxMaxID,
                                                                stillUnreadCount: read.unread, pts: channel.pts)),
                                  to: me, date: server.now, server: server, except: context.outlet)
                let outbox = API.Update.updateReadChannelOutbox(.init(channelId: channel.id, maxId: channel.readOutboxMaxID))
                for sender in read.senders {
                    UpdatePush.single(outbox, to: sender, date: server.now, server: server, except: nil)
                }
            }
            return true

        }
    }
}
