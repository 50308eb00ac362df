import MTProto
import TL

extension ChannelsRPC {
    /// `channels.getParticipants`: a page (at most 200, `offset` skipped) of a channel's members by filter — recent,
    /// admins, bots, a search by name or username, the kicked, the restricted — with the total the filter matches (`ChannelParticipants`).
    /// `hash` is not compared: the list is always sent.
    enum GetParticipants: RPCMethod {
        typealias Function = API.functions.channels.GetParticipants

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            switch call.filter {
            case let .channelParticipantsSearch(value): try InputLimits.checkLookup(value.q, error: "SEARCH_QUERY_EMPTY")
            case let .channelParticipantsKicked(value): try InputLimits.checkLookup(value.q, error: "SEARCH_QUERY_EMPTY")
            case let .channelParticipantsBanned(value): try InputLimits.checkLookup(value.q, error: "SEARCH_QUERY_EMPTY")
            default: break
            }
            let (input, filter) = (call.channel, call.filter)
            let offset = Int(max(0, call.offset)), limit = Int(min(max(call.limit, 0), Int32(ChannelParticipants.largestPage)))
            return try await server.storageRead { tx in
                let (channel, viewer) = try ChannelAccess.member(input, user: me, in: tx)
                try ChannelParticipants.checkCanList(channel, viewer: viewer)
                return try ChannelParticipants.page(filter, channel: channel, viewer: me, offset: offset, limit: limit, server: server, in: tx)
            }
        }
    }

    /// `channels.getParticipant`: one member (or a kicked user) as `getParticipants` shows them; `USER_NOT_PARTICIPANT`
    /// for anyone else. Anyone may ask about themselves; about others, as for the list.
    enum GetParticipant: RPCMethod {
        typealias Function = API.functions.channels.GetParticipant

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, participant) = (call.channel, call.participant)
            return try await server.storageRead { tx in
                let (channel, viewer) = try ChannelAccess.member(input, user: me, in: tx)
                guard case let .user(userID) = try PeerResolution.peer(participant, me: me, in: tx) else {
                    throw RPCError.badRequest("USER_NOT_PARTICIPANT")
                }
                if userID != me { try ChannelParticipants.checkCanList(channel, viewer: viewer) }
                let shown: API.ChannelParticipant
                if let member = try tx.member(channel: channel.id, user: userID) {
                    shown = ChannelParticipants.participant(member, channel: channel, viewer: me)
                } else if let ban = try tx.ban(channel: channel.id, user: userID) {
                    shown = ChannelParticipants.banned(ban)
                } else {
                    throw RPCError.badRequest("USER_NOT_PARTICIPANT")
                }
                let named = try PeerRendering.users(among: ChannelParticipants.users(namedBy: shown).map(PeerRef.user), in: tx)
                let users = try ContactEditing.rendered(named, viewer: me, server: server, in: tx)
                return .channelParticipant(.init(participant: shown, chats: [ChannelRendering.chat(channel, member: viewer)], users: users))
            }
        }
    }

    /// `channels.getFullChannel`: about, member, admin and kicked counts, the caller's read marks and unread count, the
    /// newest pinned message (`pinned_msg_id`), the channel's pts; for members, and for anyone when the channel is public. Layer 229 puts `kicked_count` and
    /// `banned_count` (members with restrictions of their own) under one flag bit, so both are given.
    enum GetFullChannel: RPCMethod {
        typealias Function = API.functions.channels.GetFullChannel

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let input = call.channel
            return try await server.storageRead { tx in
                let channel = try ChannelAccess.channel(input, in: tx)
                let member = try tx.member(channel: channel.id, user: me)
                if member == nil, channel.username == nil { throw RPCError(code: 400, message: "CHANNEL_PRIVATE") }
                let participants = try tx.memberCount(channel: channel.id)
                let unread = try member.map { try tx.channelUnreadCount(channel: channel.id, above: $0.readInboxMaxID, viewer: me) } ?? 0
                let pinned = try Pins.newest(channel: channel.id, in: tx)
                let full = API.ChatFull.channelFull(.init(
                    canViewParticipants: !channel.broadcast || member.map { $0.role != .member } ?? false,
                    id: channel.id, about: channel.about.clamped(toUnits: InputLimits.aboutLength),
                    participantsCount: Int32(clamping: participants),
                    adminsCount: Int32(clamping: try tx.memberCount(channel: channel.id, filter: .admins)),
                    kickedCount: Int32(clamping: try tx.banCount(channel: channel.id)),
                    bannedCount: Int32(clamping: try tx.memberCount(channel: channel.id, filter: .restricted)),
                    readInboxMaxId: member?.readInboxMaxID ?? 0, readOutboxMaxId: channel.readOutboxMaxID,
                    unreadCount: Int32(clamping: unread), chatPhoto: .photoEmpty(.init(id: 0)),
                    notifySettings: TLRendering.notifySettings(), botInfo: [], pinnedMsgId: pinned, pts: channel.pts))
                let creator = try ContactEditing.rendered(try tx.user(id: channel.creatorID).map { [$0] } ?? [], viewer: me, server: server, in: tx)
                return .chatFull(.init(fullChat: full, chats: [ChannelRendering.chat(channel, member: member, participants: participants)],
                                       users: creator))
            }
        }
    }
}
