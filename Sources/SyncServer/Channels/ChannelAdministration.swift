import MTProto
import TL

/// What admins do to a channel: promote and demote (`channels.editAdmin`, the creator only), kick and ban
/// (`channels.editBanned`), retitle (`channels.editTitle`) and invite (`channels.inviteToChannel`). Rights are enforced
/// by role — the creator, admins, members — with Telegram's errors (`CHAT_ADMIN_REQUIRED`, `USER_NOT_PARTICIPANT`,
/// `USER_CREATOR`, `USER_ADMIN_INVALID`); individual admin rights and partial restrictions are not kept.
enum ChannelAdministration {
    /// The channel and the caller's membership, which must be the creator's or an admin's.
    static func asAdmin(_ input: API.InputChannel, me: Int64, in tx: any StorageReader) throws -> (ChannelRecord, ChannelMember) {
        let (channel, member) = try ChannelAccess.member(input, user: me, in: tx)
        guard member.role != .member else { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
        return (channel, member)
    }

    /// Whether rights name none at all (Telegram's way of demoting an admin or lifting a ban).
    static func isEmpty(_ rights: API.ChatAdminRights) -> Bool {
        rights == .chatAdminRights(.init())
    }

    /// Makes `target` an admin, or a member again with empty rights; the creator only.
    static func editAdmin(_ input: API.InputChannel, target: Int64, rights: API.ChatAdminRights, me: Int64,
                          in tx: any StorageWriter) throws -> ChannelRecord {
        let (channel, caller) = try ChannelAccess.member(input, user: me, in: tx)
        guard caller.role == .creator else { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
        guard var member = try tx.member(channel: channel.id, user: target) else { throw RPCError.badRequest("USER_NOT_PARTICIPANT") }
        guard member.role != .creator else { throw RPCError.badRequest("USER_CREATOR") }
        member.role = isEmpty(rights) ? .member : .admin
        try tx.upsert(member)
        return channel
    }

    /// `view_messages` banned: `target` is removed (a service message in a supergroup) and kept out until unbanned;
    /// rights that ban nothing lift a ban. An admin may ban members; only the creator may ban an admin; nobody the
    /// creator. Other restrictions are refused (`BANNED_RIGHTS_INVALID`: not kept by this server).
    static func editBanned(_ input: API.InputChannel, target: Int64, rights: API.ChatBannedRights, me: Int64, date: Int32,
                           in tx: any StorageWriter) throws -> ChannelMembership.Change {
        let (channel, caller) = try asAdmin(input, me: me, in: tx)
        guard case let .chatBannedRights(value) = rights else { throw RPCError.badRequest("BANNED_RIGHTS_INVALID") }
        let member = try tx.member(channel: channel.id, user: target)
        guard member?.role != .creator, target != me else { throw RPCError.badRequest("USER_ADMIN_INVALID") }
        if member?.role == .admin, caller.role != .creator { throw RPCError.badRequest("USER_ADMIN_INVALID") }
        if rights == .chatBannedRights(.init(untilDate: value.untilDate)) {
            try tx.deleteBan(channel: channel.id, user: target)
            return ChannelMembership.Change(channel: channel, member: nil, service: nil)
        }
        guard value.viewMessages else { throw RPCError.badRequest("BANNED_RIGHTS_INVALID") }
        try tx.insert(ChannelBan(channelID: channel.id, userID: target, kickedBy: me, date: date))
        guard member != nil else { return ChannelMembership.Change(channel: channel, member: nil, service: nil) }
        let told = try tx.memberIDs(channel: channel.id)
        try tx.removeMember(channel: channel.id, user: target)
        guard !channel.broadcast else { return ChannelMembership.Change(channel: channel, member: nil, service: nil) }
        let (updated, _, update) = try ChannelMembership.logService(.messageActionChatDeleteUser(.init(userId: target)), by: me,
                                                                   in: channel, date: date, tx: tx)
        return ChannelMembership.Change(channel: updated, member: nil, service: (update, told))
    }

    /// A new title (`CHAT_NOT_MODIFIED` when it is the title already), told as a service message.
    static func editTitle(_ input: API.InputChannel, title: String, me: Int64, date: Int32,
                          in tx: any StorageWriter) throws -> ChannelMembership.Change {
        var (channel, _) = try asAdmin(input, me: me, in: tx)
        guard channel.title != title else { throw RPCError.badRequest("CHAT_NOT_MODIFIED") }
        channel.title = title
        try tx.upsert(channel)
        let (updated, _, update) = try ChannelMembership.logService(.messageActionChatEditTitle(.init(title: title)), by: me, in: channel,
                                                                   date: date, tx: tx)
        return ChannelMembership.Change(channel: updated, member: try tx.member(channel: channel.id, user: me),
                                        service: (update, try tx.memberIDs(channel: channel.id)))
    }

    /// Adds `users` (those not members yet) as members; in a broadcast channel for admins only, in a supergroup for
    /// any member. An admin's invitation lifts a ban; a member's does not (`USER_KICKED`). In a supergroup one
    /// service message names them all.
    static func invite(_ input: API.InputChannel, users: [Int64], me: Int64, date: Int32,
                       in tx: any StorageWriter) throws -> (change: ChannelMembership.Change, invited: [Int64]) {
        let (channel, caller) = try ChannelAccess.member(input, user: me, in: tx)
        if channel.broadcast, caller.role == .member { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
        var invited: [Int64] = []
        for user in users where try tx.member(channel: channel.id, user: user) == nil && !invited.contains(user) {
            if try tx.ban(channel: channel.id, user: user) != nil {
                guard caller.role != .member else { throw RPCError.badRequest("USER_KICKED") }
                try tx.deleteBan(channel: channel.id, user: user)
            }
            try tx.upsert(ChannelMember(channelID: channel.id, userID: user, role: .member, date: date,
                                        readInboxMaxID: channel.nextMessageID - 1))
            invited.append(user)
        }
        guard !invited.isEmpty, !channel.broadcast else {
            return (ChannelMembership.Change(channel: channel, member: caller, service: nil), invited)
        }
        let (updated, _, update) = try ChannelMembership.logService(.messageActionChatAddUser(.init(users: invited)), by: me, in: channel,
                                                                   date: date, tx: tx)
        return (ChannelMembership.Change(channel: updated, member: caller, service: (update, try tx.memberIDs(channel: channel.id))), invited)
    }
}
