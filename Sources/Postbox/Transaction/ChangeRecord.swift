/// Everything one transaction changed, as typed operations: what live views replay instead of re-querying
/// (the reason Postbox does not use GRDB's ValueObservation; see the measurements).
public struct ChangeRecord: Sendable {
    /// What happened to one message.
    public enum MessageOperation: Sendable, Equatable {
        case insert(Message)
        case update(Message)
        case remove(MessageID)
    }

    /// What happened to one hole space.
    public enum HoleOperation: Sendable, Equatable {
        case insert(ClosedRange<Int32>)
        case remove(ClosedRange<Int32>)
    }

    /// What happened to one operation-log tag.
    public enum OperationLogChange: Sendable, Equatable {
        case append(OperationLogEntry)
        case remove(peer: PeerID, localIndex: Int32)
    }

    /// Message changes by peer, in order.
    public internal(set) var messages: [PeerID: [MessageOperation]] = [:]
    /// Peers whose data changed.
    public internal(set) var peers: Set<PeerID> = []
    /// Peers whose read state changed.
    public internal(set) var readStates: Set<PeerID> = []
    /// Peers whose chat-list entry changed.
    public internal(set) var chatList: Set<PeerID> = []
    /// Whether the chat list's hole moved.
    public internal(set) var chatListHoleChanged = false
    /// Hole changes by hole space, in order.
    public internal(set) var holes: [HoleKey: [HoleOperation]] = [:]
    /// Whether the sync cursor changed.
    public internal(set) var cursorChanged = false
    /// Operation-log changes by tag, in order.
    public internal(set) var operationLog: [Int32: [OperationLogChange]] = [:]
    /// Preferences set or removed.
    public internal(set) var preferences: Set<String> = []
    /// Channels whose state changed.
    public internal(set) var channelStates: Set<PeerID> = []
    /// Whether the contact list changed.
    public internal(set) var contactsChanged = false
    /// Whether the set of blocked peers changed.
    public internal(set) var blockedChanged = false
    /// Peers whose draft changed.
    public internal(set) var drafts: Set<PeerID> = []
    /// Peers whose notification settings changed.
    public internal(set) var notificationSettings: Set<PeerID> = []
    /// Kinds of chat whose notification settings changed.
    public internal(set) var kindNotificationSettings: Set<ChatKind> = []
    /// Groups and channels whose member list changed.
    public internal(set) var participants: Set<PeerID> = []
    /// `removeAllData`: every view reloads.
    public internal(set) var everythingChanged = false

    /// Whether the transaction changed nothing (no view needs to hear of it).
    public var isEmpty: Bool {
        !everythingChanged && messages.isEmpty && peers.isEmpty && readStates.isEmpty && chatList.isEmpty && !chatListHoleChanged && holes.isEmpty
            && !cursorChanged
            && operationLog.isEmpty && preferences.isEmpty && channelStates.isEmpty && !contactsChanged && !blockedChanged
            && drafts.isEmpty && notificationSettings.isEmpty && kindNotificationSettings.isEmpty && participants.isEmpty
    }
}

/// Which hole set: history holes of one (peer, namespace) in one space (everywhere, or one tag).
public struct HoleKey: Hashable, Sendable {
    /// The chat.
    public let peer: PeerID
    /// The message namespace.
    public let namespace: Int32
    /// Everything, or one tag's messages.
    public let space: HoleSpace

    /// The hole space of `peer`'s `namespace`, for everything or one tag.
    public init(peer: PeerID, namespace: Int32, space: HoleSpace) {
        self.peer = peer
        self.namespace = namespace
        self.space = space
    }
}

/// Holes in "everywhere" cover all messages; holes in a tag space cover only messages with that tag.
public enum HoleSpace: Hashable, Sendable {
    case everywhere
    case tag(MessageTags)

    var rawValue: Int64 {
        switch self {
        case .everywhere: return 0
        case let .tag(tag): return Int64(tag.rawValue)
        }
    }
}

/// One outbound operation (send, edit, delete, read, …) waiting for the network, in per-peer and merged order.
public struct OperationLogEntry: Hashable, Sendable {
    /// The chat the operation is about.
    public let peer: PeerID
    /// The kind of operation (the engine's numbering: sends, reads, …).
    public let tag: Int32
    /// Order within (peer, tag).
    public let localIndex: Int32
    /// Order across every peer within the tag: the order workers take entries in.
    public let mergedIndex: Int64
    /// The operation itself, as the engine encoded it.
    public let contents: [UInt8]
}

/// A peer's read state in one message namespace.
public struct ReadState: Hashable, Sendable {
    /// Incoming messages up to this id are read.
    public var maxIncomingReadID: Int32
    /// Outgoing messages up to this id were read by the other side.
    public var maxOutgoingReadID: Int32
    /// Incoming messages above the read mark.
    public var unreadCount: Int32

    /// A read state; all zero is a chat never read.
    public init(maxIncomingReadID: Int32 = 0, maxOutgoingReadID: Int32 = 0, unreadCount: Int32 = 0) {
        self.maxIncomingReadID = maxIncomingReadID
        self.maxOutgoingReadID = maxOutgoingReadID
        self.unreadCount = unreadCount
    }
}

/// A peer's place in the chat list.
public struct ChatListEntry: Hashable, Sendable {
    /// The chat.
    public var peer: PeerID
    /// Its newest message in the chat-list namespace, nil when it has none stored.
    public var topMessage: MessageIndex?
    /// Whether the chat shows in the list.
    public var included: Bool
    /// Position among pinned chats (lower first), nil if not pinned.
    public var pinnedIndex: Int32?
}

/// One entry of the account's contact list: the user, the name the account saved them under, and whether they have the
/// account among their contacts too.
public struct ContactEntry: Hashable, Sendable, Codable {
    /// The user.
    public var peer: PeerID
    /// The saved first name.
    public var firstName: String
    /// The saved last name (empty when none).
    public var lastName: String
    /// Whether the contact is mutual.
    public var isMutual: Bool

    /// A contact-list entry.
    public init(peer: PeerID, firstName: String, lastName: String = "", isMutual: Bool = false) {
        self.peer = peer
        self.firstName = firstName
        self.lastName = lastName
        self.isMutual = isMutual
    }
}

/// The draft of a chat: unsent text, the message it replies to, when it was saved.
public struct Draft: Hashable, Sendable, Codable {
    /// The text.
    public var text: String
    /// The id of the message it replies to, if any.
    public var replyTo: Int32?
    /// When it was saved (Unix time).
    public var date: Int32

    /// A draft.
    public init(text: String, replyTo: Int32? = nil, date: Int32) {
        self.text = text
        self.replyTo = replyTo
        self.date = date
    }
}

/// A kind of chat, for settings that apply to every chat of the kind (Telegram's `notifyUsers`, `notifyChats`,
/// `notifyBroadcasts`).
public enum ChatKind: Int32, Codable, Hashable, Sendable {
    case privateChats = 0
    case groups = 1
    case channels = 2
}

/// A chat's notification settings; nil fields are unset (the app's defaults apply).
public struct NotificationSettings: Hashable, Sendable, Codable {
    /// Muted until this Unix time (0: not muted).
    public var muteUntil: Int32?
    /// Notifications without sound.
    public var silent: Bool?
    /// Message text shown in notifications.
    public var showPreviews: Bool?

    /// Settings with the given fields set.
    public init(muteUntil: Int32? = nil, silent: Bool? = nil, showPreviews: Bool? = nil) {
        self.muteUntil = muteUntil
        self.silent = silent
        self.showPreviews = showPreviews
    }
}
