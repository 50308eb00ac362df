/// A window of one peer's history around an anchor (or the latest messages), optionally only messages with a tag,
/// with the nearest hole on each side so the hole filler knows what to fetch.
public final class MessageHistoryView: PostboxView {
    /// What the window shows: messages, and the holes next to them.
    public struct Snapshot: Sendable, Equatable {
        /// Oldest first.
        public let messages: [Message]
        /// The nearest hole at or below the anchor (older side) that the window reaches, if any: one between the
        /// shown messages, or beyond them when that side shows fewer messages than it could.
        public let earlierHole: ClosedRange<Int32>?
        /// The same on the newer side.
        public let laterHole: ClosedRange<Int32>?
        /// The anchor's id (the newest shown message, or the top of all ids, for the latest messages).
        public let anchorID: Int32
    }

    /// The chat.
    public let peer: PeerID
    /// The message namespace.
    public let namespace: Int32
    /// nil: the latest messages.
    public let anchor: MessageIndex?
    /// Messages the window shows.
    public let count: Int
    /// Only messages with this tag, nil for all.
    public let tag: MessageTags?

    /// A window of `count` messages of `peer` around `anchor` (nil: the latest), optionally only those tagged
    /// `tag`.
    public init(peer: PeerID, namespace: Int32, anchor: MessageIndex? = nil, count: Int, tag: MessageTags? = nil) {
        self.peer = peer
        self.namespace = namespace
        self.anchor = anchor
        self.count = max(1, count)
        self.tag = tag
    }

    public var keys: Set<ViewKey> { [.history(peer), .holes(peer)] }

    public func load(_ transaction: Transaction) throws -> Snapshot {
        let top = MessageIndex(id: MessageID(peer: peer, namespace: namespace, id: .max), timestamp: .max)
        let messages: [Message]
        // Whether each side shows as many messages as it could (then a hole beyond them is outside the window).
        let (olderFull, newerFull): (Bool, Bool)
        if let anchor {
            let older = try transaction.messages(peer: peer, namespace: namespace, from: anchor, direction: .older,
                                                 limit: count / 2, tag: tag)
            let atAndNewer = try transaction.messages(
                peer: peer, namespace: namespace,
                from: MessageIndex(id: MessageID(peer: peer, namespace: namespace, id: anchor.id.id - 1), timestamp: anchor.timestamp),
                direction: .newer, limit: count - older.count, tag: tag)
            messages = older.reversed() + atAndNewer
            (olderFull, newerFull) = (older.count == count / 2, atAndNewer.count == count - older.count)
        } else {
            messages = try transaction.messages(peer: peer, namespace: namespace, from: top, direction: .older, limit: count, tag: tag).reversed()
            (olderFull, newerFull) = (messages.count == count, false)
        }
        let key = HoleKey(peer: peer, namespace: namespace, space: tag.map { .tag($0) } ?? .everywhere)
        // For the latest messages the anchor is the newest one shown (or the top of all ids when none is stored).
        let anchorID = anchor?.id.id ?? messages.last?.id.id ?? (Int32.max - 1)
        let (oldestShown, newestShown) = (messages.first?.id.id ?? anchorID, messages.last?.id.id ?? anchorID)
        let holes = try transaction.holes(key)
        return Snapshot(messages: messages,
                        earlierHole: holes.last { $0.lowerBound <= anchorID && (!olderFull || $0.upperBound >= oldestShown) },
                        laterHole: holes.first { $0.upperBound >= anchorID && (!newerFull || $0.lowerBound <= newestShown) },
                        anchorID: anchorID)
    }
}

extension MessageHistoryView {
    public func holeRequests(in snapshot: Snapshot) -> Set<HoleRequest> {
        let key = HoleKey(peer: peer, namespace: namespace, space: tag.map { .tag($0) } ?? .everywhere)
        var requests = Set<HoleRequest>()
        if let hole = snapshot.earlierHole {
            requests.insert(HoleRequest(key: key, hole: hole, direction: .older, count: count, anchor: snapshot.anchorID))
        }
        if let hole = snapshot.laterHole {
            requests.insert(HoleRequest(key: key, hole: hole, direction: .newer, count: count, anchor: snapshot.anchorID))
        }
        return requests
    }
}

/// Every message not yet confirmed by the server, oldest first: what the outbox shows as pending.
public final class UnsentMessagesView: PostboxView {
    public init() {}
    public var keys: Set<ViewKey> { [.anyHistory] }
    public func load(_ transaction: Transaction) throws -> [MessageID] { try transaction.unsentMessageIDs() }
}
