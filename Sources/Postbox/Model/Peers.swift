/// A stored peer, typed: what chat lists, profiles and member lists show, kept in columns of its own rather than in
/// the engine's wire format (Telegram-iOS's Postbox likewise stores `TelegramUser`/`TelegramGroup`/`TelegramChannel`,
/// never API objects). The engine maps server objects to these and back to the input peers it sends.
public enum Peer: Sendable, Equatable {
    case user(UserPeer)
    case group(GroupPeer)
    case channel(ChannelPeer)

    /// The peer's key.
    public var id: PeerID {
        switch self {
        case let .user(user): user.id
        case let .group(group): group.id
        case let .channel(channel): channel.id
        }
    }

    /// Known only from a message (Telegram's "min" peers): not to replace a full stored copy.
    public var isMin: Bool {
        switch self {
        case let .user(user): user.flags.contains(.min)
        case .group: false
        case let .channel(channel): channel.flags.contains(.min)
        }
    }

    /// The name a list shows: a user's first and last name (or username), a group's or channel's title.
    public var displayTitle: String {
        switch self {
        case let .user(user):
            let name = [user.firstName, user.lastName].filter { !$0.isEmpty }.joined(separator: " ")
            return name.isEmpty ? (user.username.map { "@\($0)" } ?? "") : name
        case let .group(group): return group.title
        case let .channel(channel): return channel.title
        }
    }
}

/// A user as the account knows them.
public struct UserPeer: Sendable, Equatable {
    /// Bits of what is true of the user.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: Int64
        public init(rawValue: Int64) { self.rawValue = rawValue }
        /// The logged-in user.
        public static let isSelf = Flags(rawValue: 1 << 0)
        /// In the account's contacts.
        public static let contact = Flags(rawValue: 1 << 1)
        /// The user has the account in their contacts too.
        public static let mutualContact = Flags(rawValue: 1 << 2)
        public static let bot = Flags(rawValue: 1 << 3)
        /// The account was deleted.
        public static let deleted = Flags(rawValue: 1 << 4)
        /// Known only from a message (Telegram's "min" user): its access hash does not address the user, and a stored
        /// full copy is not overwritten by it.
        public static let min = Flags(rawValue: 1 << 5)
    }

    public let id: PeerID
    /// What addresses the user in requests (nil when unknown).
    public var accessHash: Int64?
    public var firstName: String
    public var lastName: String
    public var username: String?
    public var phone: String?
    public var flags: Flags
    /// Last seen, as far as the user shows it (nil: never told).
    public var presence: Presence?

    public init(id: PeerID, accessHash: Int64? = nil, firstName: String = "", lastName: String = "", username: String? = nil,
                phone: String? = nil, flags: Flags = [], presence: Presence? = nil) {
        self.id = id
        self.accessHash = accessHash
        self.firstName = firstName
        self.lastName = lastName
        self.username = username
        self.phone = phone
        self.flags = flags
        self.presence = presence
    }
}

/// When a user was last seen, as precisely as they let others know (Telegram's `UserStatus`).
public enum Presence: Sendable, Equatable {
    /// Online until `expires` (a Unix time).
    case online(expires: Int32)
    /// Last seen at `wasOnline`.
    case offline(wasOnline: Int32)
    case recently
    case lastWeek
    case lastMonth
    /// Hidden, or never seen.
    case longAgo
}

/// A basic group.
public struct GroupPeer: Sendable, Equatable {
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: Int64
        public init(rawValue: Int64) { self.rawValue = rawValue }
        /// The account created the group.
        public static let creator = Flags(rawValue: 1 << 0)
        /// The account left it (or was removed).
        public static let left = Flags(rawValue: 1 << 1)
        /// Migrated or otherwise closed.
        public static let deactivated = Flags(rawValue: 1 << 2)
        /// The account may no longer see it.
        public static let forbidden = Flags(rawValue: 1 << 3)
    }

    public let id: PeerID
    public var title: String
    public var participantsCount: Int32
    public var flags: Flags
    /// What every member is banned from unless an admin, as the engine numbers it (nil: nothing said).
    public var defaultBannedRights: UInt32?

    public init(id: PeerID, title: String, participantsCount: Int32 = 0, flags: Flags = [], defaultBannedRights: UInt32? = nil) {
        self.id = id
        self.title = title
        self.participantsCount = participantsCount
        self.flags = flags
        self.defaultBannedRights = defaultBannedRights
    }
}

/// A channel or supergroup, with the account's own rights in it.
public struct ChannelPeer: Sendable, Equatable {
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: Int64
        public init(rawValue: Int64) { self.rawValue = rawValue }
        /// Only admins post (a channel); without it, a supergroup where members write.
        public static let broadcast = Flags(rawValue: 1 << 0)
        public static let megagroup = Flags(rawValue: 1 << 1)
        public static let creator = Flags(rawValue: 1 << 2)
        /// The account is not (or no longer) a member.
        public static let left = Flags(rawValue: 1 << 3)
        /// The account may no longer see it (banned, or the channel is private to it).
        public static let forbidden = Flags(rawValue: 1 << 4)
        /// Known only from a message (Telegram's "min" channel): its access hash does not address it.
        public static let min = Flags(rawValue: 1 << 5)
    }

    public let id: PeerID
    /// What addresses the channel in requests (nil when unknown).
    public var accessHash: Int64?
    public var title: String
    public var username: String?
    /// Nil when the server did not say.
    public var participantsCount: Int32?
    public var flags: Flags
    /// The account's admin rights, as the engine numbers them (nil: not an admin).
    public var adminRights: UInt32?
    /// What the account is banned from, as the engine numbers it (nil: nothing).
    public var bannedRights: UInt32?
    /// What every member of a supergroup is banned from unless an admin (nil: nothing said).
    public var defaultBannedRights: UInt32?

    public init(id: PeerID, accessHash: Int64? = nil, title: String, username: String? = nil, participantsCount: Int32? = nil,
                flags: Flags = [], adminRights: UInt32? = nil, bannedRights: UInt32? = nil, defaultBannedRights: UInt32? = nil) {
        self.defaultBannedRights = defaultBannedRights
        self.id = id
        self.accessHash = accessHash
        self.title = title
        self.username = username
        self.participantsCount = participantsCount
        self.flags = flags
        self.adminRights = adminRights
        self.bannedRights = bannedRights
    }
}

/// One member of a group or channel.
public struct Participant: Hashable, Sendable {
    /// What the member may do (a higher role sorts first in a member list).
    public enum Role: Int32, Sendable {
        case member = 0
        case admin = 1
        case creator = 2
    }

    public var peer: PeerID
    public var role: Role
    /// Who added the member, when known.
    public var inviter: PeerID?
    /// When the member joined (0 when unknown, as for a creator).
    public var date: Int32

    public init(peer: PeerID, role: Role = .member, inviter: PeerID? = nil, date: Int32 = 0) {
        self.peer = peer
        self.role = role
        self.inviter = inviter
        self.date = date
    }
}
