/// A peer: a namespace (user, group, channel, … — the engine decides) and an id within it.
/// Stored as one Int64: namespace in the top 8 bits, id in the low 56, so keys sort by namespace then id.
public struct PeerID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let namespace: Int32
    public let id: Int64

    public init(namespace: Int32, id: Int64) {
        self.namespace = namespace
        self.id = id
    }

    public init(rawValue: Int64) {
        namespace = Int32(truncatingIfNeeded: UInt64(bitPattern: rawValue) >> 56)
        id = rawValue & 0x00FF_FFFF_FFFF_FFFF
    }

    public var rawValue: Int64 { Int64(namespace & 0xFF) << 56 | (id & 0x00FF_FFFF_FFFF_FFFF) }

    public static func < (lhs: PeerID, rhs: PeerID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "\(namespace):\(id)" }
}

/// A message's identity: its peer, its namespace (cloud, local, scheduled, …) and its id in that namespace.
public struct MessageID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let peer: PeerID
    public let namespace: Int32
    public let id: Int32

    public init(peer: PeerID, namespace: Int32, id: Int32) {
        self.peer = peer
        self.namespace = namespace
        self.id = id
    }

    public static func < (lhs: MessageID, rhs: MessageID) -> Bool {
        (lhs.peer, lhs.namespace, lhs.id) < (rhs.peer, rhs.namespace, rhs.id)
    }

    public var description: String { "\(peer)/\(namespace)/\(id)" }
}

/// Where a message sits in history: ordered by timestamp, then id.
public struct MessageIndex: Hashable, Comparable, Sendable {
    public let id: MessageID
    public let timestamp: Int32

    public init(id: MessageID, timestamp: Int32) {
        self.id = id
        self.timestamp = timestamp
    }

    public static func < (lhs: MessageIndex, rhs: MessageIndex) -> Bool {
        (lhs.timestamp, lhs.id) < (rhs.timestamp, rhs.id)
    }
}

/// Message tags (photo, link, pinned, …) as bits; the engine assigns their meaning.
public struct MessageTags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Each set bit as its own single-bit tag.
    public var individual: [MessageTags] {
        (0..<32).compactMap { bit in rawValue & (1 << bit) != 0 ? MessageTags(rawValue: 1 << bit) : nil }
    }
}

/// Message flags Postbox itself interprets.
public struct MessageFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Received, not sent by this account: counts toward unread.
    public static let incoming = MessageFlags(rawValue: 1 << 0)
    /// Written locally and not yet confirmed by the server.
    public static let unsent = MessageFlags(rawValue: 1 << 1)
    public static let failed = MessageFlags(rawValue: 1 << 2)
}

/// A stored message. `attributes` is opaque to Postbox (the engine encodes entities, media references, …).
public struct Message: Hashable, Sendable {
    public var id: MessageID
    public var timestamp: Int32
    public var flags: MessageFlags
    public var tags: MessageTags
    public var author: PeerID?
    public var text: String
    public var attributes: [UInt8]

    public init(id: MessageID, timestamp: Int32, flags: MessageFlags = [], tags: MessageTags = [], author: PeerID? = nil,
                text: String, attributes: [UInt8] = []) {
        self.id = id
        self.timestamp = timestamp
        self.flags = flags
        self.tags = tags
        self.author = author
        self.text = text
        self.attributes = attributes
    }

    public var index: MessageIndex { MessageIndex(id: id, timestamp: timestamp) }
}
