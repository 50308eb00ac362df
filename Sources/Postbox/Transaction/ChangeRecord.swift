/// Everything one transaction changed, as typed operations: what live views replay instead of re-querying
/// (the reason Postbox does not use GRDB's ValueObservation; see the measurements).
public struct ChangeRecord: Sendable {
    public enum MessageOperation: Sendable, Equatable {
        case insert(Message)
        case update(Message)
        case remove(MessageID)
    }

    public enum HoleOperation: Sendable, Equatable {
        case insert(ClosedRange<Int32>)
        case remove(ClosedRange<Int32>)
    }

    public enum OperationLogChange: Sendable, Equatable {
        case append(OperationLogEntry)
        case remove(peer: PeerID, localIndex: Int32)
    }

    public internal(set) var messages: [PeerID: [MessageOperation]] = [:]
    public internal(set) var peers: Set<PeerID> = []
    public internal(set) var readStates: Set<PeerID> = []
    public internal(set) var chatList: Set<PeerID> = []
    public internal(set) var chatListHoleChanged = false
    public internal(set) var holes: [HoleKey: [HoleOperation]] = [:]
    public internal(set) var cursorChanged = false
    public internal(set) var operationLog: [Int32: [OperationLogChange]] = [:]
    public internal(set) var preferences: Set<String> = []
    public internal(set) var channelStates: Set<PeerID> = []
    /// `removeAllData`: every view reloads.
    public internal(set) var everythingChanged = false

    public var isEmpty: Bool {
        !everythingChanged && messages.isEmpty && peers.isEmpty && readStates.isEmpty && chatList.isEmpty && !chatListHoleChanged && holes.isEmpty
            && !cursorChanged
            && operationLog.isEmpty && preferences.isEmpty && channelStates.isEmpty
    }
}

/// Which hole set: history holes of one (peer, namespace) in one space (everywhere, or one tag).
public struct HoleKey: Hashable, Sendable {
    public let peer: PeerID
    public let namespace: Int32
    public let space: HoleSpace

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
    public let peer: PeerID
    public let tag: Int32
    /// Order within (peer, tag).
    public let localIndex: Int32
    /// Order across every peer within the tag: the order workers take entries in.
    public let mergedIndex: Int64
    public let contents: [UInt8]
}

/// A peer's read state in one message namespace.
public struct ReadState: Hashable, Sendable {
    public var maxIncomingReadID: Int32
    public var maxOutgoingReadID: Int32
    public var unreadCount: Int32

    public init(maxIncomingReadID: Int32 = 0, maxOutgoingReadID: Int32 = 0, unreadCount: Int32 = 0) {
        self.maxIncomingReadID = maxIncomingReadID
        self.maxOutgoingReadID = maxOutgoingReadID
        self.unreadCount = unreadCount
    }
}

/// A peer's place in the chat list.
public struct ChatListEntry: Hashable, Sendable {
    public var peer: PeerID
    public var topMessage: MessageIndex?
    public var included: Bool
    /// Position among pinned chats (lower first), nil if not pinned.
    public var pinnedIndex: Int32?
}
