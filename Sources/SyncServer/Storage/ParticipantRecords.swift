/// Which members `channels.getParticipants` lists, newest join first.
public enum MemberFilter: Sendable, Equatable {
    /// Everyone.
    case recent
    /// The creator and the admins.
    case admins
    /// Members with restrictions of their own (`channelParticipantsBanned`).
    case restricted
    /// Bots.
    case bots
    /// Members whose first name, last name or username starts with the text (ignoring the case of ASCII letters).
    case search(String)
}

/// A user removed from a channel and kept out of it (`channels.editBanned` with `view_messages`) until unbanned.
public struct ChannelBan: Sendable, Equatable {
    public var channelID: Int64
    public var userID: Int64
    public var kickedBy: Int64
    public var date: Int32

    public init(channelID: Int64, userID: Int64, kickedBy: Int64, date: Int32) {
        self.channelID = channelID
        self.userID = userID
        self.kickedBy = kickedBy
        self.date = date
    }
}

/// Channel members as `channels.getParticipants` pages them, and the users banned from channels.
public protocol ParticipantStorageReader {
    func members(channel: Int64, filter: MemberFilter, offset: Int, limit: Int) throws -> [ChannelMember]
    func memberCount(channel: Int64, filter: MemberFilter) throws -> Int
    func ban(channel: Int64, user: Int64) throws -> ChannelBan?
    /// Newest first.
    func bans(channel: Int64, offset: Int, limit: Int) throws -> [ChannelBan]
    func banCount(channel: Int64) throws -> Int
}

public protocol ParticipantStorageWriter {
    func insert(_ ban: ChannelBan) throws
    func deleteBan(channel: Int64, user: Int64) throws
}
