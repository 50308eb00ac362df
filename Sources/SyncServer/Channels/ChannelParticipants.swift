import MTProto
import TL

/// Channel members as `channels.getParticipants` and `channels.getParticipant` show them. In a broadcast channel only
/// admins see the member list (`CHAT_ADMIN_REQUIRED`), as on Telegram; in a supergroup every member does. An admin
/// is shown with the rights and rank given by `channels.editAdmin`, and who promoted them.
enum ChannelParticipants {
    /// Members one page lists at most (Telegram's limit for `channels.getParticipants`).
    static let largestPage = 200

    static let kickedRights = API.ChatBannedRights.chatBannedRights(.init(viewMessages: true, untilDate: Int32.max))

    /// The member list is for a supergroup's members and a broadcast channel's admins.
    static func checkCanList(_ channel: ChannelRecord, viewer: ChannelMember) throws {
        if channel.broadcast, viewer.role == .member { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
    }

    /// `member` as `viewer` sees them; `can_edit` when the viewer may change this admin's rights (the creator, or
    /// the admin who promoted them).
    static func participant(_ member: ChannelMember, channel: ChannelRecord, viewer: Int64) -> API.ChannelParticipant {
        switch member.role {
        case .creator:
            return .channelParticipantCreator(.init(userId: member.userID, adminRights: AdminRights.creator.tl, rank: member.adminRank))
        case .admin:
            let promoter = member.promotedBy ?? channel.creatorID
            return .channelParticipantAdmin(.init(canEdit: viewer == channel.creatorID || viewer == promoter, self: member.userID == viewer,
                                                  userId: member.userID, inviterId: member.userID == viewer ? channel.creatorID : nil,
                                                  promotedBy: promoter, date: member.date, adminRights: AdminRights(rawValue: member.adminRights).tl,
                                                  rank: member.adminRank))
        case .member:
            if let restrictions = ChannelRestrictions.rendered(member) {
                return .channelParticipantBanned(.init(peer: .peerUser(.init(userId: member.userID)),
                                                       kickedBy: member.restrictedBy ?? channel.creatorID, date: member.date,
                                                       bannedRights: restrictions))
            }
            if member.userID == viewer {
                return .channelParticipantSelf(.init(userId: member.userID, inviterId: channel.creatorID, date: member.date))
            }
            return .channelParticipant(.init(userId: member.userID, date: member.date))
        }
    }

    /// The users a participant names (itself, who invited, promoted or restricted it), for the answer's `users`.
    static func users(namedBy participant: API.ChannelParticipant) -> [Int64] {
        switch participant {
        case let .channelParticipant(value): [value.userId]
        case let .channelParticipantSelf(value): [value.userId, value.inviterId]
        case let .channelParticipantCreator(value): [value.userId]
        case let .channelParticipantAdmin(value): [value.userId, value.promotedBy] + (value.inviterId.map { [$0] } ?? [])
        case let .channelParticipantBanned(value): [NamedPeers.of(value.peer).userID, value.kickedBy].compactMap { $0 }
        case let .channelParticipantLeft(value): [NamedPeers.of(value.peer).userID].compactMap { $0 }
        }
    }

    static func banned(_ ban: ChannelBan) -> API.ChannelParticipant {
        .channelParticipantBanned(.init(left: true, peer: .peerUser(.init(userId: ban.userID)), kickedBy: ban.kickedBy, date: ban.date,
                                        bannedRights: kickedRights))
    }

    /// A page of `channels.getParticipants`: participants with the total the filter matches, and the users they name.
    static func page(_ filter: API.ChannelParticipantsFilter, channel: ChannelRecord, viewer: Int64, offset: Int, limit: Int,
                     server: ServerContext, in tx: any StorageReader) throws -> API.channels.ChannelParticipants {
        var participants: [API.ChannelParticipant] = []
        let count: Int
        switch memberFilter(filter) {
        case let .members(filter)?:
            let members = try tx.members(channel: channel.id, filter: filter, offset: offset, limit: limit)
            participants = members.map { participant($0, channel: channel, viewer: viewer) }
            count = try tx.memberCount(channel: channel.id, filter: filter)
        case .bans?:
            let bans = try tx.bans(channel: channel.id, offset: offset, limit: limit)
            participants = bans.map(banned)
            count = try tx.banCount(channel: channel.id)
        case nil:
            count = 0
        }
        var seen = Set<Int64>()
        let users = participants.flatMap(users(namedBy:))
        let rendered = try ContactEditing.rendered(try users.filter { seen.insert($0).inserted }.compactMap { try tx.user(id: $0) },
                                                   viewer: viewer, server: server, in: tx)
        return .channelParticipants(.init(count: Int32(clamping: count), participants: participants, chats: [], users: rendered))
    }

    private enum Listing { case members(MemberFilter), bans }

    /// What a filter lists; nil for what this server has none of (contacts and mentions lists are empty here: a
    /// filter it cannot answer better lists nothing rather than everyone).
    private static func memberFilter(_ filter: API.ChannelParticipantsFilter) -> Listing? {
        switch filter {
        case .channelParticipantsRecent: .members(.recent)
        case .channelParticipantsAdmins: .members(.admins)
        case .channelParticipantsBots: .members(.bots)
        case let .channelParticipantsSearch(value): value.q.isEmpty ? .members(.recent) : .members(.search(value.q))
        case .channelParticipantsKicked: .bans
        case .channelParticipantsBanned: .members(.restricted)
        case .channelParticipantsContacts, .channelParticipantsMentions: nil
        }
    }
}
