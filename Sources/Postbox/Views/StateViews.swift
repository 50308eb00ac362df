/// The chat list: included chats, pinned first, then by top message.
public final class ChatListView: PostboxView {
    /// Chats the view shows.
    public let count: Int
    /// A chat list of the `count` most recent chats, pinned first.
    public init(count: Int) { self.count = count }
    public var keys: Set<ViewKey> { [.chatList] }
    public func load(_ transaction: Transaction) throws -> [ChatListEntry] { try transaction.chatList(limit: count) }
}

/// The chat-list hole: where the locally known chat list ends (what the engine loads dialogs for).
public final class ChatListHoleView: PostboxView {
    public init() {}
    public var keys: Set<ViewKey> { [.chatList] }
    public func load(_ transaction: Transaction) throws -> Int32? { try transaction.chatListHole }
}

/// The sync cursor blob.
public final class CursorView: PostboxView {
    public init() {}
    public var keys: Set<ViewKey> { [.cursor] }
    public func load(_ transaction: Transaction) throws -> [UInt8]? { try transaction.cursor }
}

/// One stored peer (nil while unknown): its name, username, flags, rights, and for a user the presence.
public final class PeerView: PostboxView {
    /// The peer.
    public let peer: PeerID
    /// A view of `peer`.
    public init(peer: PeerID) { self.peer = peer }
    public var keys: Set<ViewKey> { [.peer(peer)] }
    public func load(_ transaction: Transaction) throws -> Peer? { try transaction.peer(peer) }
}

/// The presence of several users (a chat list page's, a group's members'): those never told are left out.
public final class PresencesView: PostboxView {
    /// The users.
    public let peers: [PeerID]
    /// A view of `peers`' presences.
    public init(peers: [PeerID]) { self.peers = peers }
    public var keys: Set<ViewKey> { Set(peers.map(ViewKey.peer)) }
    public func load(_ transaction: Transaction) throws -> [PeerID: Presence] {
        var presences: [PeerID: Presence] = [:]
        for id in peers {
            if case let .user(user)? = try transaction.peer(id), let presence = user.presence { presences[id] = presence }
        }
        return presences
    }
}

/// One peer's read state and unread count in a namespace.
public final class ReadStateView: PostboxView {
    /// The chat.
    public let peer: PeerID
    /// The message namespace.
    public let namespace: Int32
    /// A view of `peer`'s read state in `namespace`.
    public init(peer: PeerID, namespace: Int32) {
        self.peer = peer
        self.namespace = namespace
    }
    public var keys: Set<ViewKey> { [.readState(peer)] }
    public func load(_ transaction: Transaction) throws -> ReadState { try transaction.readState(peer, namespace: namespace) }
}

/// The operation log of one tag, in merged order: what an outbox worker watches.
public final class OperationLogView: PostboxView {
    /// The operation kind.
    public let tag: Int32
    /// Entries the view shows at most.
    public let limit: Int
    /// A view of the first `limit` pending operations of kind `tag`, in merged order.
    public init(tag: Int32, limit: Int = 100) {
        self.tag = tag
        self.limit = limit
    }
    public var keys: Set<ViewKey> { [.operationLog(tag: tag)] }
    public func load(_ transaction: Transaction) throws -> [OperationLogEntry] { try transaction.operations(tag: tag, limit: limit) }
}

/// Two views as one: one consistent snapshot of both after every commit that touches either.
public final class CombinedView<First: PostboxView, Second: PostboxView>: PostboxView {
    /// Both views' snapshots.
    public struct Snapshot: Sendable, Equatable {
        /// The first view's snapshot.
        public let first: First.Snapshot
        /// The second view's snapshot.
        public let second: Second.Snapshot
    }

    /// The first view.
    public let first: First
    /// The second view.
    public let second: Second
    /// Two views read in one transaction, so their snapshots always agree.
    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }
    public var keys: Set<ViewKey> { first.keys.union(second.keys) }
    public func load(_ transaction: Transaction) throws -> Snapshot {
        Snapshot(first: try first.load(transaction), second: try second.load(transaction))
    }
    /// A history view inside a combined view still asks for its holes.
    public func holeRequests(in snapshot: Snapshot) -> Set<HoleRequest> {
        first.holeRequests(in: snapshot.first).union(second.holeRequests(in: snapshot.second))
    }
}

/// The account's contact list, by saved name.
public final class ContactsView: PostboxView {
    public init() {}
    public var keys: Set<ViewKey> { [.contacts] }
    public func load(_ transaction: Transaction) throws -> [ContactEntry] { try transaction.contacts() }
}

/// The peers the account blocked.
public final class BlockedPeersView: PostboxView {
    public init() {}
    public var keys: Set<ViewKey> { [.blockedPeers] }
    public func load(_ transaction: Transaction) throws -> Set<PeerID> { try transaction.blockedPeers() }
}

/// A chat's draft.
public final class DraftView: PostboxView {
    /// The chat.
    public let peer: PeerID
    /// A view of `peer`'s draft.
    public init(peer: PeerID) { self.peer = peer }
    public var keys: Set<ViewKey> { [.draft(peer)] }
    public func load(_ transaction: Transaction) throws -> Draft? { try transaction.draft(peer) }
}

/// A chat's notification settings.
public final class NotificationSettingsView: PostboxView {
    /// The chat.
    public let peer: PeerID
    /// A view of `peer`'s notification settings.
    public init(peer: PeerID) { self.peer = peer }
    public var keys: Set<ViewKey> { [.notificationSettings(peer)] }
    public func load(_ transaction: Transaction) throws -> NotificationSettings? { try transaction.notificationSettings(peer) }
}

/// A group's or channel's member list (empty until read from the server: `Account.participants(of:)`).
public final class ParticipantsView: PostboxView {
    /// The group or channel.
    public let chat: PeerID
    /// A view of `chat`'s members.
    public init(chat: PeerID) { self.chat = chat }
    public var keys: Set<ViewKey> { [.participants(chat)] }
    public func load(_ transaction: Transaction) throws -> [Participant] { try transaction.participants(of: chat) }
}
