/// The chat list: included chats, pinned first, then by top message.
public final class ChatListView: PostboxView {
    public let count: Int
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

/// One peer's stored data.
public final class PeerView: PostboxView {
    public let peer: PeerID
    public init(peer: PeerID) { self.peer = peer }
    public var keys: Set<ViewKey> { [.peer(peer)] }
    public func load(_ transaction: Transaction) throws -> [UInt8]? { try transaction.peer(peer) }
}

/// One peer's read state and unread count in a namespace.
public final class ReadStateView: PostboxView {
    public let peer: PeerID
    public let namespace: Int32
    public init(peer: PeerID, namespace: Int32) {
        self.peer = peer
        self.namespace = namespace
    }
    public var keys: Set<ViewKey> { [.readState(peer)] }
    public func load(_ transaction: Transaction) throws -> ReadState { try transaction.readState(peer, namespace: namespace) }
}

/// The operation log of one tag, in merged order: what an outbox worker watches.
public final class OperationLogView: PostboxView {
    public let tag: Int32
    public let limit: Int
    public init(tag: Int32, limit: Int = 100) {
        self.tag = tag
        self.limit = limit
    }
    public var keys: Set<ViewKey> { [.operationLog(tag: tag)] }
    public func load(_ transaction: Transaction) throws -> [OperationLogEntry] { try transaction.operations(tag: tag, limit: limit) }
}

/// Two views as one: one consistent snapshot of both after every commit that touches either.
public final class CombinedView<First: PostboxView, Second: PostboxView>: PostboxView {
    public struct Snapshot: Sendable, Equatable {
        public let first: First.Snapshot
        public let second: Second.Snapshot
    }

    public let first: First
    public let second: Second
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
