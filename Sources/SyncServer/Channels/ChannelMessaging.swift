import MTProto
import TL

/// What a post into a channel stored (or, for a retried `random_id`, what the first post stored).
struct ChannelPost: Sendable {
    let channel: ChannelRecord
    let message: ChannelMessage
    let pts: Int32
    /// The members to push to (none for a repeat: nothing new happened; then only the sender's standing).
    let members: ChannelAudience
    let isRepeat: Bool
}

/// A change to existing channel messages: the logged update and who sees it.
struct ChannelChange: Sendable {
    let channel: ChannelRecord
    let update: API.Update?
    let pts: Int32
    let ptsCount: Int32
    let members: ChannelAudience
}

/// New, edited and deleted channel messages: one copy per channel, one event in the channel's log each, in the
/// write transaction the handler runs. Posting in a broadcast channel is for its admins; editing is for the
/// author; deleting is for the author or an admin.
enum ChannelMessaging {
    static func post(_ outgoing: OutgoingMessage, from sender: Int64, to channelID: Int64, randomID: Int64, date: Int32,
                     in tx: any StorageWriter) throws -> ChannelPost {
        let (channel, member) = try ChannelAccess.membership(of: channelID, user: sender, in: tx)
        if let earlier = try tx.sent(user: sender, randomID: randomID) {
            // As for private messages: a retry gets the first answer, even for a post deleted since.
            guard earlier.channelID == channelID else { throw RPCError.badRequest("RANDOM_ID_DUPLICATE") }
            let message = try tx.channelMessage(channel: channelID, id: earlier.messageID)
                ?? ChannelMessage(channelID: channelID, id: earlier.messageID, fromID: sender, date: earlier.date, text: outgoing.text,
                                  entities: outgoing.entities)
            return ChannelPost(channel: channel, message: message, pts: earlier.pts,
                               members: .nobody(answering: member), isRepeat: true)
        }
        if channel.broadcast, !member.canPost { throw RPCError(code: 403, message: "CHAT_WRITE_FORBIDDEN") }
        try ChannelRestrictions.checkCanSend(member, in: channel, now: date)
        var box = ChannelBox(channel, tx: tx)
        let (message, pts, _) = try box.logNewMessage(date: date) { id in
            ChannelMessage(channelID: channelID, id: id, fromID: sender, date: date, text: outgoing.text, entities: outgoing.entities,
                           replyTo: outgoing.replyTo, forward: outgoing.forward, media: outgoing.media?.bytes,
                           mediaKind: outgoing.media?.kind ?? .none, groupedID: outgoing.groupedID)
        }
        try box.save()
        try tx.recordSent(SentRecord(messageID: message.id, pts: pts, date: date, channelID: channelID), user: sender, randomID: randomID)
        return ChannelPost(channel: box.channel, message: message, pts: pts, members: try ChannelAudience(channel: channelID, in: tx),
                           isRepeat: false)
    }

    static func edit(by editor: Int64, channel channelID: Int64, id: Int32, _ edit: MessageEdit, date: Int32,
                     in tx: any StorageWriter) throws -> ChannelChange {
        let (channel, member) = try ChannelAccess.membership(of: channelID, user: editor, in: tx)
        guard var message = try tx.channelMessage(channel: channelID, id: id), message.action.isEmpty else {
            throw RPCError.badRequest("MESSAGE_ID_INVALID")
        }
        // In a broadcast channel, admins holding `edit_messages` edit every post; elsewhere only the author edits.
        guard message.fromID == editor || (channel.broadcast && member.has(.editMessages)) else {
            throw RPCError(code: 403, message: "MESSAGE_AUTHOR_REQUIRED")
        }
        let (text, entities, media) = try edit.applied(text: message.text, entities: message.entities, media: message.outgoingMedia)
        message.text = text
        message.entities = entities
        (message.media, message.mediaKind) = (media?.bytes, media?.kind ?? .none)
        message.editDate = date
        try tx.upsert(message)
        var box = ChannelBox(channel, tx: tx)
        let (pts, update) = try box.record(ptsCount: 1, date: date) { [message] pts in
            .updateEditChannelMessage(.init(message: ChannelRendering.logged(message), pts: pts, ptsCount: 1))
        }
        try box.save()
        return ChannelChange(channel: box.channel, update: update, pts: pts, ptsCount: 1, members: try ChannelAudience(channel: channelID, in: tx))
    }

    /// Deletes the ids that exist; one event for all of them (pts_count = how many), none when nothing was deleted.
    static func delete(by user: Int64, channel channelID: Int64, ids: [Int32], date: Int32, in tx: any StorageWriter) throws -> ChannelChange {
        let (channel, member) = try ChannelAccess.membership(of: channelID, user: user, in: tx)
        var deleted: [Int32] = []
        for id in Set(ids).sorted() {
            guard let message = try tx.channelMessage(channel: channelID, id: id) else { continue }
            guard message.fromID == user || member.has(.deleteMessages) else {
                throw RPCError(code: 403, message: "MESSAGE_DELETE_FORBIDDEN")
            }
            deleted.append(id)
        }
        guard !deleted.isEmpty else {
            return ChannelChange(channel: channel, update: nil, pts: channel.pts, ptsCount: 0, members: .nobody(answering: member))
        }
        for id in deleted { try tx.deleteChannelMessage(channel: channelID, id: id) }
        var box = ChannelBox(channel, tx: tx)
        let count = Int32(deleted.count)
        let (pts, update) = try box.record(ptsCount: count, date: date) { pts in
            .updateDeleteChannelMessages(.init(channelId: channelID, messages: deleted, pts: pts, ptsCount: count))
        }
        try box.save()
        return ChannelChange(channel: box.channel, update: update, pts: pts, ptsCount: count, members: try ChannelAudience(channel: channelID, in: tx))
    }

    /// Pins or unpins a channel message (admins holding `pin_messages`, as in a channel's default rights): one
    /// `updatePinnedChannelMessages` in the channel's log, and for a pin a `messageActionPinMessage` post replying to
    /// it. Nothing changes (and nothing is logged) when the message already is as asked.
    static func pin(by user: Int64, channel channelID: Int64, id: Int32, pinned: Bool, date: Int32,
                    in tx: any StorageWriter) throws -> (channel: ChannelRecord, updates: [API.Update], members: ChannelAudience) {
        let (channel, member) = try ChannelAccess.membership(of: channelID, user: user, in: tx)
        guard member.has(.pinMessages) else { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
        guard var message = try tx.channelMessage(channel: channelID, id: id), message.action.isEmpty else {
            throw RPCError.badRequest("MESSAGE_ID_INVALID")
        }
        guard message.pinned != pinned else { return (channel, [], .nobody(answering: member)) }
        message.pinned = pinned
        try tx.upsert(message)
        var box = ChannelBox(channel, tx: tx)
        var updates = [try box.record(ptsCount: 1, date: date) { pts in
            .updatePinnedChannelMessages(.init(pinned: pinned, channelId: channelID, messages: [id], pts: pts, ptsCount: 1))
        }.update]
        if pinned {
            let action = API.MessageAction.messageActionPinMessage(.init()).serialized()
            updates.append(try box.logNewMessage(date: date) { serviceID in
                ChannelMessage(channelID: channelID, id: serviceID, fromID: user, date: date, text: "", action: action, replyTo: id)
            }.update)
        }
        try box.save()
        return (box.channel, updates, try ChannelAudience(channel: channelID, in: tx))
    }

    /// What a member's read changed: their inbox mark and unread count, and in a supergroup the senders whose
    /// messages were read for the first time (they get `updateReadChannelOutbox`).
    struct Read: Sendable {
        let channel: ChannelRecord
        let member: ChannelMember
        let unread: Int32
        let senders: [Int64]
    }

    /// A member's read mark. Reads are per user, not channel events (no pts moves); in a supergroup the channel's
    /// read-outbox mark follows the highest read.
    static func read(by user: Int64, channel channelID: Int64, maxID: Int32, in tx: any StorageWriter) throws -> Read? {
        var (channel, member) = try ChannelAccess.membership(of: channelID, user: user, in: tx)
        let top = channel.nextMessageID - 1
        let upTo = maxID <= 0 ? top : min(maxID, top)
        guard upTo > member.readInboxMaxID else { return nil }
        member.readInboxMaxID = upTo
        try tx.upsert(member)
        var senders: [Int64] = []
        if !channel.broadcast, upTo > channel.readOutboxMaxID {
            senders = try tx.channelSenders(channel: channelID, above: channel.readOutboxMaxID, upTo: upTo).filter { $0 != user }
            channel.readOutboxMaxID = upTo
            try tx.upsert(channel)
        }
        let unread = Int32(clamping: try tx.channelUnreadCount(channel: channelID, above: upTo, viewer: user))
        return Read(channel: channel, member: member, unread: unread, senders: senders)
    }
}
