import TL

/// Channels and their messages as a given user sees them: `left` when they are not a member, `out` on their own
/// messages, and in a broadcast channel every message a `post` without `from_id`, as Telegram shows posts.
enum ChannelRendering {
    /// The channel as `member` sees it: `creator`, the admin's rights in `admin_rights` (the creator's are all), a
    /// restricted member's own restrictions in `banned_rights`, and a supergroup's defaults.
    static func chat(_ channel: ChannelRecord, member: ChannelMember?, participants: Int? = nil) -> API.Chat {
        .channel(.init(
            creator: member?.role == .creator, left: member == nil, broadcast: channel.broadcast, megagroup: !channel.broadcast,
            id: channel.id, accessHash: channel.accessHash, title: channel.title.clamped(toUnits: InputLimits.titleLength), username: channel.username,
            photo: ChatPhotos.rendered(channel.photo), date: channel.date, adminRights: member.flatMap(adminRights),
            bannedRights: member.flatMap(ChannelRestrictions.rendered), defaultBannedRights: ChannelRestrictions.defaults(of: channel),
            participantsCount: participants.map { Int32(clamping: $0) }))
    }

    /// The channel as a member of `audience` sees it (pushes, and answers that carry the channel so clients learn its
    /// access hash).
    static func chat(_ channel: ChannelRecord, seenBy user: Int64, in audience: ChannelAudience) -> API.Chat {
        chat(channel, member: audience.member(user, of: channel))
    }

    /// A channel as others than the one it was rendered for may be told of it (a forward's origin pushed to every
    /// member of the chat it was forwarded to): the `min` form (core.telegram.org/api/min), without the viewer's
    /// standing or an access hash, which a client reads as a name to show and stores over nothing it knows.
    static func minimal(_ chat: API.Chat) -> API.Chat {
        guard case let .channel(value) = chat else { return chat }
        return .channel(.init(broadcast: value.broadcast, megagroup: value.megagroup, min: true, id: value.id, title: value.title,
                              username: value.username, photo: value.photo, date: value.date))
    }

    /// What a member's `admin_rights` say: the creator's, an admin's stored ones, nothing for a member.
    static func adminRights(_ member: ChannelMember) -> API.ChatAdminRights? {
        switch member.role {
        case .creator: AdminRights.creator.tl
        case .admin: AdminRights(rawValue: member.adminRights).tl
        case .member: nil
        }
    }

    static func peer(_ channelID: Int64) -> API.Peer { .peerChannel(.init(channelId: channelID)) }

    /// A member's dialog with the channel: their read mark and unread count, the supergroup's outbox mark, and the
    /// channel's pts (where clients start their channel box).
    static func dialog(_ channel: ChannelRecord, member: ChannelMember, topMessage: Int32, unread: Int) -> API.Dialog {
        .dialog(.init(peer: peer(channel.id), topMessage: topMessage, readInboxMaxId: member.readInboxMaxID,
                      readOutboxMaxId: channel.readOutboxMaxID, unreadCount: Int32(clamping: unread), unreadMentionsCount: 0,
                      unreadReactionsCount: 0, unreadPollVotesCount: 0, notifySettings: TLRendering.notifySettings(), pts: channel.pts))
    }

    static func message(_ stored: ChannelMessage, viewer: Int64, broadcast: Bool) -> API.Message {
        let out = stored.fromID == viewer
        let from: API.Peer? = broadcast ? nil : .peerUser(.init(userId: stored.fromID))
        if !stored.action.isEmpty, let action = try? API.MessageAction.deserialize(stored.action) {
            return .messageService(.init(out: out, post: broadcast, id: stored.id, fromId: from, peerId: peer(stored.channelID),
                                         replyTo: TLRendering.replyHeader(stored.replyTo), date: stored.date, action: action))
        }
        return .message(.init(out: out, post: broadcast, pinned: stored.pinned, id: stored.id, fromId: from,
                              peerId: peer(stored.channelID), fwdFrom: TLRendering.forwardHeader(stored.forward),
                              replyTo: TLRendering.replyHeader(stored.replyTo), date: stored.date, message: TLRendering.text(stored.text), media: TLRendering.media(stored.media),
                              entities: TLRendering.entities(stored.entities),
                              editDate: stored.editDate, groupedId: stored.groupedID))
    }

    /// A logged channel event as `viewer` sees it. The log keeps messages with their sender in `from_id` and
    /// `out` unset (one log for all members); the viewer's `out` and the broadcast form are applied here.
    static func event(_ update: API.Update, viewer: Int64, broadcast: Bool) -> API.Update {
        switch update {
        case var .updateNewChannelMessage(value):
            value.message = personalized(value.message, viewer: viewer, broadcast: broadcast)
            return .updateNewChannelMessage(value)
        case var .updateEditChannelMessage(value):
            value.message = personalized(value.message, viewer: viewer, broadcast: broadcast)
            return .updateEditChannelMessage(value)
        default:
            return update
        }
    }

    private static func personalized(_ message: API.Message, viewer: Int64, broadcast: Bool) -> API.Message {
        switch message {
        case var .message(value):
            if case let .peerUser(user)? = value.fromId { value.out = user.userId == viewer }
            if broadcast { value.post = true; value.fromId = nil }
            return .message(value)
        case var .messageService(value):
            if case let .peerUser(user)? = value.fromId { value.out = user.userId == viewer }
            if broadcast { value.post = true; value.fromId = nil }
            return .messageService(value)
        case .messageEmpty:
            return message
        }
    }

    /// The log form of a stored message: sender in `from_id`, `out` unset.
    static func logged(_ stored: ChannelMessage) -> API.Message {
        message(stored, viewer: 0, broadcast: false)
    }
}
