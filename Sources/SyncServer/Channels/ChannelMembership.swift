import MTProto
import TL

/// Creating, joining and leaving channels. Joining needs a public channel (one with a username; invite links are
/// not implemented); the creator cannot leave. A new member starts with everything before the join read.
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
        let created = ChannelMessage(channelID: record.id, id: box.takeMessageID(), fromID: record.creatorID, date: record.date,
                                     text: "", action: API.MessageAction.messageActionChannelCreate(.init(title: record.title)).serialized())
        try tx.upsert(created)
        try box.record(ptsCount: 1, date: record.date) { pts in
            .updateNewChannelMessage(.init(message: ChannelRendering.logged(created), pts: pts, ptsCount: 1))
        }
        try box.save()
        for user in members where user != record.creatorID {
            try tx.upsert(ChannelMember(channelID: record.id, userID: user, role: .member, date: record.date,
                                        readInboxMaxID: created.id))
        }
        return (box.channel, created)
    }

    static func join(user: Int64, channel input: API.InputChannel, date: Int32, in tx: any StorageWriter) throws -> (ChannelRecord, ChannelMember) {
        let channel = try ChannelAccess.channel(input, in: tx)
        guard try tx.member(channel: channel.id, user: user) == nil else { throw RPCError.badRequest("USER_ALREADY_PARTICIPANT") }
        guard channel.username != nil else { throw RPCError.badRequest("CHANNEL_PRIVATE") }
        let member = ChannelMember(channelID: channel.id, userID: user, role: .member, date: date,
                                   readInboxMaxID: channel.nextMessageID - 1)
        try tx.upsert(member)
        return (channel, member)
    }

    static func leave(user: Int64, channel input: API.InputChannel, in tx: any StorageWriter) throws -> ChannelRecord {
        let channel = try ChannelAccess.channel(input, in: tx)
        guard let member = try tx.member(channel: channel.id, user: user) else { throw RPCError.badRequest("USER_NOT_PARTICIPANT") }
        guard member.role != .creator else { throw RPCError.badRequest("USER_CREATOR") }
        try tx.removeMember(channel: channel.id, user: user)
        return channel
    }
}
