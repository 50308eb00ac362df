import MTProto
import TL

/// Who may see and change a channel. A channel is addressed by id and access hash (CHANNEL_INVALID when they do
/// not match); its messages, history and log are for members only (CHANNEL_PRIVATE otherwise, also after leaving),
/// which is what keeps a user who left out of a channel.
enum ChannelAccess {
    static func channel(_ input: API.InputChannel, in tx: any StorageReader) throws -> ChannelRecord {
        guard case let .inputChannel(value) = input else { throw RPCError.badRequest("CHANNEL_INVALID") }
        return try channel(id: value.channelId, accessHash: value.accessHash, in: tx)
    }

    static func channel(id: Int64, accessHash: Int64, in tx: any StorageReader) throws -> ChannelRecord {
        guard let channel = try tx.channel(id: id), channel.accessHash == accessHash else {
            throw RPCError.badRequest("CHANNEL_INVALID")
        }
        return channel
    }

    /// The caller's membership of a channel they address, or CHANNEL_PRIVATE.
    static func member(_ input: API.InputChannel, user: Int64, in tx: any StorageReader) throws -> (ChannelRecord, ChannelMember) {
        let channel = try channel(input, in: tx)
        return (channel, try member(of: channel.id, user: user, in: tx))
    }

    /// The channel (by id, already resolved) and the caller's membership of it, or CHANNEL_PRIVATE / CHANNEL_INVALID.
    static func membership(of channelID: Int64, user: Int64, in tx: any StorageReader) throws -> (ChannelRecord, ChannelMember) {
        let member = try member(of: channelID, user: user, in: tx)
        guard let channel = try tx.channel(id: channelID) else { throw RPCError.badRequest("CHANNEL_INVALID") }
        return (channel, member)
    }

    static func member(of channel: Int64, user: Int64, in tx: any StorageReader) throws -> ChannelMember {
        guard let member = try tx.member(channel: channel, user: user) else {
            throw RPCError(code: 400, message: "CHANNEL_PRIVATE")
        }
        return member
    }
}
