import MTProtoNIO
import MTProto
import TL

extension ChannelsRPC {
    /// What an admin's change tells whom, computed in its transaction and pushed after the commit: the service message
    /// (if any) to the members it was logged for, `updateChannel` to the users whose standing changed, and the
    /// caller's answer (`updateChannel` and the service message).
    struct AdminOutcome: Sendable {
        let change: ChannelMembership.Change
        let actor: UserRecord?
        /// The other users the service message names (members added, removed).
        let named: [UserRecord]
        /// Each affected user with the channel as they now see it.
        let affected: [(user: Int64, chat: API.Chat)]
        /// The actor as the members told of the service message see them.
        let links: ViewerLinks
        let answer: API.Updates

        init(_ change: ChannelMembership.Change, affected: [Int64], me: Int64, date: Int32, server: ServerContext,
             in tx: any StorageReader) throws {
            let channel = change.channel
            self.change = change
            actor = try tx.user(id: me)
            named = try PeerRendering.users(among: change.service.map { NamedPeers.of($0.0) }?.filter { $0 != .user(me) } ?? [], in: tx)
            links = try ViewerLinks.forPush(viewers: change.service?.members.ids ?? [], always: [me], users: [me] + named.map(\.id),
                                            server: server, in: tx)
            self.affected = try affected.map { ($0, ChannelRendering.chat(channel, member: try tx.member(channel: channel.id, user: $0))) }
            var updates: [API.Update] = [.updateChannel(.init(channelId: channel.id))]
            if let (service, _) = change.service { updates.append(ChannelRendering.event(service, viewer: me, broadcast: channel.broadcast)) }
            answer = .updates(.init(updates: updates, users: links.rendered((actor.map { [$0] } ?? []) + named, viewer: me),
                                    chats: [ChannelRendering.chat(channel, member: try tx.member(channel: channel.id, user: me))],
                                    date: date, seq: 0))
        }

        func push(date: Int32, server: ServerContext, except caller: SessionOutlet?) -> API.Updates {
            let channel = change.channel
            for (user, chat) in affected {
                UpdatePush.updates([.updateChannel(.init(channelId: channel.id))], chats: [chat], to: user, date: date, server: server,
                                   except: caller)
            }
            if let (service, members) = change.service {
                UpdatePush.channelEvent(service, channel: channel, members: members, sender: actor, naming: named, links: links, date: date,
                                        server: server, except: caller)
            }
            return answer
        }
    }

    /// `channels.editAdmin`: the creator, or an admin holding `add_admins`, promotes a member to admin with the rights
    /// and rank given, or demotes one with rights that name none (`ChannelAdministration.editAdmin`). The user is told
    /// with `updateChannel` and the channel as they now see it.
    enum EditAdmin: RPCMethod {
        typealias Function = API.functions.channels.EditAdmin

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, target, rights, rank, date) = (call.channel, call.userId, call.adminRights, call.rank, server.now)
            return try await server.storageWrite { tx in
                let user = try PeerResolution.user(target, me: me, in: tx)
                let channel = try ChannelAdministration.editAdmin(input, target: user.id, rights: rights, rank: rank, me: me, in: tx)
                return try AdminOutcome(ChannelMembership.Change(channel: channel, member: nil, service: nil), affected: [user.id], me: me,
                                        date: date, server: server, in: tx)
            }.push(date: date, server: server, except: context.outlet)
        }
    }

    /// `channels.editBanned`: kicks and bans a user (`view_messages`), restricts a member (any other right), or lifts
    /// both with rights that ban nothing — Telegram's kick is a ban and its lifting in a row
    /// (`ChannelAdministration.editBanned`). The user is told with `updateChannel` and the channel as they now see it.
    enum EditBanned: RPCMethod {
        typealias Function = API.functions.channels.EditBanned

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, participant, rights, date) = (call.channel, call.participant, call.bannedRights, server.now)
            return try await server.storageWrite { tx in
                guard case let .user(target) = try PeerResolution.peer(participant, me: me, in: tx) else {
                    throw RPCError.badRequest("PARTICIPANT_ID_INVALID")
                }
                let change = try ChannelAdministration.editBanned(input, target: target, rights: rights, me: me, date: date, in: tx)
                return try AdminOutcome(change, affected: [target], me: me, date: date, server: server, in: tx)
            }.push(date: date, server: server, except: context.outlet)
        }
    }

    /// `channels.editTitle`: an admin's new title, as a service message to the members.
    enum EditTitle: RPCMethod {
        typealias Function = API.functions.channels.EditTitle

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let title = try InputLimits.title(call.title)
            let (input, date) = (call.channel, server.now)
            return try await server.storageWrite { tx in
                let change = try ChannelAdministration.editTitle(input, title: title, me: me, date: date, in: tx)
                return try AdminOutcome(change, affected: [], me: me, date: date, server: server, in: tx)
            }.push(date: date, server: server, except: context.outlet)
        }
    }

    /// `channels.editPhoto`: the channel's photo from an upload, an existing photo or none, told as a service message.
    enum EditPhoto: RPCMethod {
        typealias Function = API.functions.channels.EditPhoto

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let photo = try await ChatPhotos.photo(call.photo, me: me, dc: context.dc, server: server)
            let (input, date) = (call.channel, server.now)
            return try await server.storageWrite { tx in
                let change = try ChannelAdministration.editPhoto(input, photo: photo, me: me, date: date, in: tx)
                return try AdminOutcome(change, affected: [], me: me, date: date, server: server, in: tx)
            }.push(date: date, server: server, except: context.outlet)
        }
    }

    /// `channels.inviteToChannel` (at most 100 users): they become members and are told with `updateChannel`; in a
    /// supergroup a service message names them.
    enum InviteToChannel: RPCMethod {
        typealias Function = API.functions.channels.InviteToChannel

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.users.count)
            let (input, inputs, date) = (call.channel, call.users, server.now)
            let outcome = try await server.storageWrite { tx in
                let users = try inputs.map { try PeerResolution.user($0, me: me, in: tx).id }
                let (change, invited) = try ChannelAdministration.invite(input, users: users, me: me, date: date, in: tx)
                return try AdminOutcome(change, affected: invited, me: me, date: date, server: server, in: tx)
            }
            return .invitedUsers(.init(updates: outcome.push(date: date, server: server, except: context.outlet), missingInvitees: []))
        }
    }
}
