import MTProto
import TL

/// What admins do to a channel: promote and demote (`channels.editAdmin`), kick and ban (`channels.editBanned`),
/// retitle (`channels.editTitle`) and invite (`channels.inviteToChannel`). Each needs its admin right
/// (core.telegram.org/api/rights): the creator holds them all, an admin those `channels.editAdmin` gave, a member none;
/// Telegram's errors (`CHAT_ADMIN_REQUIRED`, `RIGHT_FORBIDDEN`, `USER_NOT_PARTICIPANT`, `USER_CREATOR`,
/// `USER_ADMIN_INVALID`). Members' restrictions are `ChannelRestrictions`.
enum ChannelAdministration {
    /// Admins a channel may have besides its creator (Telegram's limit; `ADMINS_TOO_MUCH` past it).
    static let largestStaff = 50

    /// The channel and the caller's membership, which must hold `right`.
    static func asAdmin(_ input: API.InputChannel, holding right: AdminRights, me: Int64,
                        in tx: any StorageReader) throws -> (ChannelRecord, ChannelMember) {
        let (channel, member) = try ChannelAccess.member(input, user: me, in: tx)
        guard member.has(right) else { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
        return (channel, member)
    }

    /// Makes `target` an admin with `rights` and `rank`, or a member again with rights that name none (Telegram's way
    /// of demoting). The creator may edit any admin; an admin holding `add_admins` only those they promoted, and
    /// grants only rights they hold themselves (`RIGHT_FORBIDDEN`).
    static func editAdmin(_ input: API.InputChannel, target: Int64, rights: API.ChatAdminRights, rank: String?, me: Int64,
                          in tx: any StorageWriter) throws -> ChannelRecord {
        let (channel, caller) = try asAdmin(input, holding: .addAdmins, me: me, in: tx)
        guard var member = try tx.member(channel: channel.id, user: target) else { throw RPCError.badRequest("USER_NOT_PARTICIPANT") }
        guard member.role != .creator else { throw RPCError.badRequest("USER_CREATOR") }
        if caller.role != .creator, member.role == .admin, (member.promotedBy ?? channel.creatorID) != me {
            throw RPCError.badRequest("CHAT_ADMIN_REQUIRED")
        }
        let granted = AdminRights(rights)
        guard caller.role == .creator || AdminRights(rawValue: caller.adminRights).isSuperset(of: granted) else {
            throw RPCError.badRequest("RIGHT_FORBIDDEN")
        }
        let rank = try AdminRank.checked(rank)
        if granted.isEmpty {
            (member.role, member.adminRights, member.adminRank, member.promotedBy) = (.member, 0, nil, nil)
        } else {
            if member.role == .member,
               try tx.members(channel: channel.id, filter: .admins, offset: 0, limit: largestStaff + 1).count > largestStaff {
                throw RPCError.badRequest("ADMINS_TOO_MUCH")
            }
            let promoter = member.role == .admin ? member.promotedBy : me
            (member.role, member.adminRights, member.adminRank, member.promotedBy) = (.admin, granted.rawValue, rank, promoter)
        }
        try tx.upsert(member)
        return channel
    }

    /// `view_messages` banned: `target` is removed (a service message in a supergroup) and kept out until unbanned;
    /// other restrictions bind a member who stays (`ChannelRestrictions`); rights that ban nothing lift both. An admin
    /// holding `ban_users` may ban and restrict members; ban an admin only the creator or the admin who promoted them;
    /// nobody the creator.
    static func editBanned(_ input: API.InputChannel, target: Int64, rights: API.ChatBannedRights, me: Int64, date: Int32,
                           in tx: any StorageWriter) throws -> ChannelMembership.Change {
        let (channel, caller) = try asAdmin(input, holding: .banUsers, me: me, in: tx)
        guard case let .chatBannedRights(value) = rights else { throw RPCError.badRequest("BANNED_RIGHTS_INVALID") }
        let member = try tx.member(channel: channel.id, user: target)
        guard member?.role != .creator, target != me else { throw RPCError.badRequest("USER_ADMIN_INVALID") }
        if let member, member.role == .admin, caller.role != .creator, (member.promotedBy ?? channel.creatorID) != me {
            throw RPCError.badRequest("USER_ADMIN_INVALID")
        }
        if rights.flagsWord == 0 {
            try tx.deleteBan(channel: channel.id, user: target)
            if var restricted = member, ChannelRestrictions.lift(&restricted) { try tx.upsert(restricted) }
            return ChannelMembership.Change(channel: channel, member: nil, service: nil)
        }
        guard value.viewMessages else {
            guard var restricted = member else { throw RPCError.badRequest("USER_NOT_PARTICIPANT") }
            try ChannelRestrictions.restrict(&restricted, to: rights, by: me, now: date)
            try tx.upsert(restricted)
            return ChannelMembership.Change(channel: channel, member: nil, service: nil)
        }
        try tx.insert(ChannelBan(channelID: channel.id, userID: target, kickedBy: me, date: date))
        guard member != nil else { return ChannelMembership.Change(channel: channel, member: nil, service: nil) }
        let told = try ChannelAudience(channel: channel.id, in: tx)
        try tx.removeMember(channel: channel.id, user: target)
        guard !channel.broadcast else { return ChannelMembership.Change(channel: channel, member: nil, service: nil) }
        let (updated, _, update) = try ChannelMembership.logService(.messageActionChatDeleteUser(.init(userId: target)), by: me,
                                                                   in: channel, date: date, tx: tx)
        return ChannelMembership.Change(channel: updated, member: nil, service: (update, told))
    }

    /// A new title (`CHAT_NOT_MODIFIED` when it is the title already), told as a service message.
    static func editTitle(_ input: API.InputChannel, title: String, me: Int64, date: Int32,
                          in tx: any StorageWriter) throws -> ChannelMembership.Change {
        var (channel, _) = try asAdmin(input, holding: .changeInfo, me: me, in: tx)
        guard channel.title != title else { throw RPCError.badRequest("CHAT_NOT_MODIFIED") }
        channel.title = title
        try tx.upsert(channel)
        let (updated, _, update) = try ChannelMembership.logService(.messageActionChatEditTitle(.init(title: title)), by: me, in: channel,
                                                                   date: date, tx: tx)
        return ChannelMembership.Change(channel: updated, member: try tx.member(channel: channel.id, user: me),
                                        service: (update, try ChannelAudience(channel: channel.id, in: tx)))
    }

    /// A new photo, or none (`ChatPhotos.change`), told as a service message; for admins holding `change_info`.
    static func editPhoto(_ input: API.InputChannel, photo: (StoredMediaFile, [StoredPhotoSize])?, me: Int64, date: Int32,
                          in tx: any StorageWriter) throws -> ChannelMembership.Change {
        var (channel, _) = try asAdmin(input, holding: .changeInfo, me: me, in: tx)
        let action: API.MessageAction
        (channel.photo, action) = try ChatPhotos.change(from: channel.photo, to: photo)
        try tx.upsert(channel)
        let (updated, _, update) = try ChannelMembership.logService(action, by: me, in: channel, date: date, tx: tx)
        return ChannelMembership.Change(channel: updated, member: try tx.member(channel: channel.id, user: me),
                                        service: (update, try ChannelAudience(channel: channel.id, in: tx)))
    }

    /// Adds `users` (those not members yet) as members; in a broadcast channel for admins holding `invite_users`, in a
    /// supergroup for any member not restricted from inviting (`CHAT_ADMIN_INVITE_REQUIRED`). The invitation of an admin
    /// holding `ban_users` lifts a ban; anyone else's does not (`USER_KICKED`). In a supergroup one service message
    /// names them all.
    static func invite(_ input: API.InputChannel, users: [Int64], me: Int64, date: Int32,
                       in tx: any StorageWriter) throws -> (change: ChannelMembership.Change, invited: [Int64]) {
        let (channel, caller) = try ChannelAccess.member(input, user: me, in: tx)
        if channel.broadcast, !caller.has(.inviteUsers) { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
        if ChannelRestrictions.effective(caller, in: channel, now: date).contains(.inviteUsers) {
            throw RPCError(code: 403, message: "CHAT_ADMIN_INVITE_REQUIRED")
        }
        var invited: [Int64] = []
        for user in users where try tx.member(channel: channel.id, user: user) == nil && !invited.contains(user) {
            if try tx.ban(channel: channel.id, user: user) != nil {
                guard caller.has(.banUsers) else { throw RPCError.badRequest("USER_KICKED") }
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
        return (ChannelMembership.Change(channel: updated, member: caller, service: (update, try ChannelAudience(channel: channel.id, in: tx))), invited)
    }
}
