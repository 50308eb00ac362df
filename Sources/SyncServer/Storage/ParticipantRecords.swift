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

/// The SQL of a member filter (over `channel_members m` joined with `users u`) and the LIKE pattern of a search.
enum MemberFilterSQL {
    static func condition(_ filter: MemberFilter) -> String {
        switch filter {
        case .recent: "TRUE"
        case .admins: "m.role <> 0"
        // The first term is the partial index's condition, written out so that SQLite uses the index.
        case .restricted: "(m.role <> 0 OR m.banned_rights <> 0) AND m.role = 0"
        case .bots: "u.bot"
        case .search: "(lower(u.first_name) LIKE :pattern OR lower(u.last_name) LIKE :pattern OR lower(u.username) LIKE :pattern)"
        }
    }

    static func pattern(_ filter: MemberFilter) -> String {
        if case let .search(text) = filter { UsernamePrefix.likePattern(text) } else { "%" }
    }
}
