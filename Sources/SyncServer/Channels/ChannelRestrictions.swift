import MTProto
import TL

/// A member's own restrictions (`channels.editBanned` without `view_messages`) and a supergroup's default ones
/// (`messages.editChatDefaultBannedRights`), and what they refuse (core.telegram.org/api/rights). They bind plain
/// members of supergroups only: admins and the creator are never restricted, and in a broadcast channel members do
/// not write anyway.
enum ChannelRestrictions {
    /// Restrictions set for less than 30 s or more than 366 days hold for good, as on Telegram.
    static let shortest: Int32 = 30
    static let longest: Int32 = 366 * 86_400

    /// What `member` is refused in `channel` at `now`: the defaults, and their own restrictions while those last.
    static func effective(_ member: ChannelMember, in channel: ChannelRecord, now: Int32) -> BannedRights {
        guard member.role == .member, !channel.broadcast else { return [] }
        var refused = BannedRights(rawValue: channel.defaultBannedRights)
        if member.bannedRights != 0, member.bannedUntil == 0 || member.bannedUntil > now {
            refused.formUnion(BannedRights(rawValue: member.bannedRights))
        }
        return refused
    }

    /// Refuses a text message from a member who may not write one.
    static func checkCanSend(_ member: ChannelMember, in channel: ChannelRecord, now: Int32) throws(RPCError) {
        try effective(member, in: channel, now: now).checkCanSend()
    }

    /// Sets `member`'s own restrictions to `rights` (which ban something, but not `view_messages`), by `me`; an admin
    /// or the creator cannot be restricted (`USER_ADMIN_INVALID`: demote first, as on Telegram).
    static func restrict(_ member: inout ChannelMember, to rights: API.ChatBannedRights, by me: Int64, now: Int32) throws(RPCError) {
        guard member.role == .member else { throw RPCError.badRequest("USER_ADMIN_INVALID") }
        guard case let .chatBannedRights(value) = rights else { throw RPCError.badRequest("BANNED_RIGHTS_INVALID") }
        let until = value.untilDate
        member.bannedRights = rights.flagsWord
        member.bannedUntil = until <= 0 || until < now + shortest || until > now + longest ? 0 : until
        member.restrictedBy = me
    }

    /// Lifts `member`'s own restrictions; false when there were none.
    static func lift(_ member: inout ChannelMember) -> Bool {
        guard member.bannedRights != 0 else { return false }
        (member.bannedRights, member.bannedUntil, member.restrictedBy) = (0, 0, nil)
        return true
    }

    /// A supergroup's new default restrictions, for admins holding `ban_users`: `view_messages` cannot be a default
    /// (`BANNED_RIGHTS_INVALID`); the defaults it has already, or any for a broadcast channel, whose members do not
    /// write, are `CHAT_NOT_MODIFIED`.
    static func editDefaults(of channelID: Int64, rights: API.ChatBannedRights, me: Int64,
                             in tx: any StorageWriter) throws -> ChannelRecord {
        var (channel, member) = try ChannelAccess.membership(of: channelID, user: me, in: tx)
        guard member.has(.banUsers) else { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
        let word = rights.flagsWord
        guard !BannedRights(rawValue: word).contains(.viewMessages) else { throw RPCError.badRequest("BANNED_RIGHTS_INVALID") }
        guard !channel.broadcast, channel.defaultBannedRights != word else { throw RPCError.badRequest("CHAT_NOT_MODIFIED") }
        channel.defaultBannedRights = word
        try tx.upsert(channel)
        return channel
    }

    /// A member's own restrictions as clients read them (nil for none).
    static func rendered(_ member: ChannelMember) -> API.ChatBannedRights? {
        guard member.role == .member, member.bannedRights != 0 else { return nil }
        return API.ChatBannedRights(flagsWord: member.bannedRights, untilDate: member.bannedUntil == 0 ? Int32.max : member.bannedUntil)
    }

    /// A supergroup's defaults as clients read them (nil for a broadcast channel).
    static func defaults(of channel: ChannelRecord) -> API.ChatBannedRights? {
        channel.broadcast ? nil : API.ChatBannedRights(flagsWord: channel.defaultBannedRights, untilDate: Int32.max)
    }
}

extension BannedRights {
    /// Refuses a text message (a post or a forward) to whom these restrictions bind.
    func checkCanSend() throws(RPCError) {
        if contains(.sendMessages) { throw RPCError(code: 403, message: "CHAT_WRITE_FORBIDDEN") }
        if contains(.sendPlain) { throw RPCError(code: 403, message: "CHAT_SEND_PLAIN_FORBIDDEN") }
    }
}
