import MTProto
import TL

/// `channels.*`: create, join, leave, look up, read and delete. Channel history and posting go through
/// `messages.getHistory`/`sendMessage` with an `inputPeerChannel`.
enum ChannelsHandlers {
    static func register(in router: inout RPCRouter, server: ServerContext) {
        router.on(API.functions.channels.CreateChannel.self) { call, context throws(RPCError) in
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

        router.on(API.functions.channels.JoinChannel.self) { call, context throws(RPCError) in
            let me = try context.user()
            let (input, date) = (call.channel, server.now)
            let (change, joiner) = try await server.storageWrite { tx in
                (try ChannelMembership.join(user: me, channel: input, date: date, in: tx), try tx.user(id: me))
            }
            let channel = change.channel
            let chats = [ChannelRendering.chat(channel, member: change.member)]
            UpdatePush.updates([.updateChannel(.init(channelId: channel.id))], chats: chats, to: me, date: date, server: server,
                               except: context.outlet)
            var updates: [API.Update] = [.updateChannel(.init(channelId: channel.id))]
            if let (service, members) = change.service {
                UpdatePush.channelEvent(service, channel: channel, members: members, sender: joiner, date: date, server: server,
                                        except: context.outlet)
                updates.append(ChannelRendering.event(service, viewer: me, broadcast: channel.broadcast))
            }
            return .chatInviteJoinResultOk(.init(updates: .updates(.init(
                updates: updates, users: joiner.map { [TLRendering.user($0, viewer: me)] } ?? [], chats: chats, date: date, seq: 0))))
        }

        router.on(API.functions.channels.LeaveChannel.self) { call, context throws(RPCError) in
            let me = try context.user()
            let (input, date) = (call.channel, server.now)
            let (change, leaver) = try await server.storageWrite { tx in
                (try ChannelMembership.leave(user: me, channel: input, date: date, in: tx), try tx.user(id: me))
            }
            let channel = change.channel
            if let (service, members) = change.service {
                UpdatePush.channelEvent(service, channel: channel, members: members, sender: leaver, date: date, server: server,
                                        except: context.outlet)
            }
            let chats = [ChannelRendering.chat(channel, member: nil)]
            UpdatePush.updates([.updateChannel(.init(channelId: channel.id))], chats: chats, to: me, date: date, server: server,
                               except: context.outlet)
            return .updates(.init(updates: [.updateChannel(.init(channelId: channel.id))], users: [], chats: chats, date: date, seq: 0))
        }

        router.on(API.functions.channels.GetChannels.self) { call, context throws(RPCError) in
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

        router.on(API.functions.channels.ReadHistory.self) { call, context throws(RPCError) in
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

        router.on(API.functions.channels.DeleteMessages.self) { call, context throws(RPCError) in
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let (input, ids, date) = (call.channel, call.id, server.now)
            let change = try await server.storageWrite { tx in
                let channel = try ChannelAccess.channel(input, in: tx)
                return try ChannelMessaging.delete(by: me, channel: channel.id, ids: ids, date: date, in: tx)
            }
            if let update = change.update {
                UpdatePush.channelEvent(update, channel: change.channel, members: change.members, sender: nil, date: date,
                                        server: server, except: context.outlet)
            }
            return .affectedMessages(.init(pts: change.pts, ptsCount: change.ptsCount))
        }
    }
}
