import MTProto
import TL

/// Creating, joining and leaving channels. Joining needs a public channel (one with a username; invite links are
/// not implemented), and one the user is not banned from (`ChannelAdministration`); the creator cannot leave. A new member starts with everything before the join read. In a
/// supergroup a join or a leave is a service message (`messageActionChatAddUser` / `messageActionChatDeleteUser`),
/// a channel event like any post, as Telegram shows "X joined the group".
enum ChannelMembership {
    /// Ids of channels created through `channels.createChannel` start here, clear of the seeded ones.
    static let firstCreatedID: Int64 = 20_000

    static func create(by creator: Int64, title: String, about: String, broadcast: Bool, accessHash: Int64, date: Int32,
                       in tx: any StorageWriter) throws -> (ChannelRecord, ChannelMessage) {
        let id = max(try tx.maxChannelID() + 1, firstCreatedID)
        return try create(ChannelRecord(id: id, accessHash: accessHash, title: title, about: about, broadcast: broadcast,
                                        creatorID: creator, date: date), members: [], in: tx)
    }

    /// Stores a new channel with its creator and `members`, and its first message: the service message
    /// `messageActionChannelCreate` (pts 1), as Telegram starts every channel.
    static func create(_ record: ChannelRecord, members: [Int64], in tx: any StorageWriter) throws -> (ChannelRecord, ChannelMessage) {
        try tx.upsert(ChannelMember(channelID: record.id, userID: record.creatorID, role: .creator, date: record.date))
        var box = ChannelBox(record, tx: tx)
        let action = API.MessageAction.messageActionChannelCreate(.init(title: record.title)).serialized()
        let (created, _, _) = try box.logNewMessage(date: record.date) { id in
            ChannelMessage(channelID: record.id, id: id, fromID: record.creatorID, date: record.date, text: "", action: action)
        }
        try box.save()
        for user in members where user != record.creatorID {
            try tx.upsert(ChannelMember(channelID: record.id, userID: user, role: .member, date: record.date,
                                        readInboxMaxID: created.id))
        }
        return (box.channel, created)
    }

    /// What a join or a leave changed: the channel and, in a supergroup, the logged service message.
    struct Change: Sendable {
        let channel: ChannelRecord
        let member: ChannelMember?
        /// `updateNewChannelMessage` of the service message (supergroups only), with the members to push it to.
        let service: (update: API.Update, members: ChannelAudience)?
    }

    static func join(user: Int64, channel input: API.InputChannel, date: Int32, in tx: any StorageWriter) throws -> Change {
        var channel = try ChannelAccess.channel(input, in: tx)
        guard try tx.member(channel: channel.id, user: user) == nil else { throw RPCError.badRequest("USER_ALREADY_PARTICIPANT") }
        guard channel.username != nil, try tx.ban(channel: channel.id, user: user) == nil else { throw RPCError.badRequest("CHANNEL_PRIVATE") }
        var member = ChannelMember(channelID: channel.id, userID: user, role: .member, date: date,
                                   readInboxMaxID: channel.nextMessageID - 1)
        try tx.upsert(member)
        guard !channel.broadcast else { return Change(channel: channel, member: member, service: nil) }
        let (updated, message, update) = try logService(.messageActionChatAddUser(.init(users: [user])), by: user, in: channel,
                                                       date: date, tx: tx)
        channel = updated
        member.readInboxMaxID = message.id   // one's own join is not unread
        try tx.upsert(member)
        return Change(channel: channel, member: member, service: (update, try ChannelAudience(channel: channel.id, in: tx)))
    }

    static func leave(user: Int64, channel input: API.InputChannel, date: Int32, in tx: any StorageWriter) throws -> Change {
        let channel = try ChannelAccess.channel(input, in: tx)
        guard let member = try tx.member(channel: channel.id, user: user) else { throw RPCError.badRequest("USER_NOT_PARTICIPANT") }
        guard member.role != .creator else { throw RPCError.badRequest("USER_CREATOR") }
        try tx.removeMember(channel: channel.id, user: user)
        guard !channel.broadcast else { return Change(channel: channel, member: nil, service: nil) }
        let (updated, _, update) = try logService(.messageActionChatDeleteUser(.init(userId: user)), by: user, in: channel,
                                                 date: date, tx: tx)
        return Change(channel: updated, member: nil, service: (update, try ChannelAudience(channel: channel.id, in: tx)))
    }

    /// A service message from `user`, stored and logged as the channel's next event.
    static func logService(_ action: API.MessageAction, by user: Int64, in channel: ChannelRecord, date: Int32,
                                   tx: any StorageWriter) throws -> (ChannelRecord, ChannelMessage, API.Update) {
        var box = ChannelBox(channel, tx: tx)
        let (message, _, update) = try box.logNewMessage(date: date) { id in
            ChannelMessage(channelID: channel.id, id: id, fromID: user, date: date, text: "", action: action.serialized())
        }
        try box.save()
        return (box.channel, message, update)
    }
}
