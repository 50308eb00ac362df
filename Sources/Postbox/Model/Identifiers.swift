/// A peer: a namespace (user, group, channel, … — the engine decides) and an id within it.
/// Stored as one Int64: namespace in the top 8 bits, id in the low 56, so keys sort by namespace then id.
public struct PeerID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The kind of peer (the engine's numbering: users, groups, channels).
    public let namespace: Int32
    /// The id within the namespace.
    public let id: Int64

    /// The peer `id` of `namespace`.
    public init(namespace: Int32, id: Int64) {
        self.namespace = namespace
        self.id = id
    }

    /// The peer packed in `rawValue` (namespace in the top 8 bits).
    public init(rawValue: Int64) {
        namespace = Int32(truncatingIfNeeded: UInt64(bitPattern: rawValue) >> 56)
        id = rawValue & 0x00FF_FFFF_FFFF_FFFF
    }

    /// Namespace and id in one integer, as stored.
    public var rawValue: Int64 { Int64(namespace & 0xFF) << 56 | (id & 0x00FF_FFFF_FFFF_FFFF) }

    public static func < (lhs: PeerID, rhs: PeerID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "\(namespace):\(id)" }
}

/// A message's identity: its peer, its namespace (cloud, local, scheduled, …) and its id in that namespace.
public struct MessageID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The chat.
    public let peer: PeerID
    /// The message namespace (server-numbered, local, …).
    public let namespace: Int32
    /// The id within the chat and namespace.
    public let id: Int32

    /// The message `id` in `peer`'s `namespace`.
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
    /// The message.
    public let id: MessageID
    /// Its date, the history's order.
    public let timestamp: Int32

    /// A history position: `id` at `timestamp`.
    public init(id: MessageID, timestamp: Int32) {
        self.id = id
        self.timestamp = timestamp
    }

    public static func < (lhs: MessageIndex, rhs: MessageIndex) -> Bool {
        (lhs.timestamp, lhs.id) < (rhs.timestamp, rhs.id)
    }
}

/// Message tags (photo, link, pinned, …) as bits; the engine assigns their meaning.
public struct MessageTags: OptionSet, Hashable, Sendable, Codable {
    /// The tag bits.
    public let rawValue: UInt32
    /// Tags from their bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Each set bit as its own single-bit tag.
    public var individual: [MessageTags] {
        (0..<32).compactMap { bit in rawValue & (1 << bit) != 0 ? MessageTags(rawValue: 1 << bit) : nil }
    }
}

/// Message flags Postbox itself interprets.
public struct MessageFlags: OptionSet, Hashable, Sendable, Codable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags from their bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Received, not sent by this account: counts toward unread.
    public static let incoming = MessageFlags(rawValue: 1 << 0)
    /// Written locally and not yet confirmed by the server.
    public static let unsent = MessageFlags(rawValue: 1 << 1)
    /// The server refused the send for good.
    public static let failed = MessageFlags(rawValue: 1 << 2)
}

/// A stored message. `attributes` is opaque to Postbox (the engine encodes entities, media references, …).
public struct Message: Hashable, Sendable, Codable {
    /// The message's id.
    public var id: MessageID
    /// Its date (seconds since 1970).
    public var timestamp: Int32
    /// Incoming, unsent, failed.
    public var flags: MessageFlags
    /// Tags for tag-filtered views and holes.
    public var tags: MessageTags
    /// The sender, nil when unknown or the chat itself.
    public var author: PeerID?
    /// The text.
    public var text: String
    /// What the engine stores with the message (entities, media references), opaque here.
    public var attributes: [UInt8]
    /// The message it replies to, nil when none.
    public var reply: ReplyHeader?
    /// Where a forwarded message came from, nil when it was not forwarded.
    public var forward: ForwardHeader?

    /// A message; flags, tags, author, attributes and headers default to none.
    public init(id: MessageID, timestamp: Int32, flags: MessageFlags = [], tags: MessageTags = [], author: PeerID? = nil,
                text: String, attributes: [UInt8] = [], reply: ReplyHeader? = nil, forward: ForwardHeader? = nil) {
        self.id = id
        self.timestamp = timestamp
        self.flags = flags
        self.tags = tags
        self.author = author
        self.text = text
        self.attributes = attributes
        self.reply = reply
        self.forward = forward
    }

    /// Where the message sorts in its history.
    public var index: MessageIndex { MessageIndex(id: id, timestamp: timestamp) }
}

/// What a message replies to: a message of the same chat, or of `peer` when it quotes another chat.
public struct ReplyHeader: Hashable, Sendable, Codable {
    /// The id of the message replied to.
    public var messageID: Int32
    /// The chat of that message when it is not this one.
    public var peer: PeerID?
    /// The top message of the thread the reply is in (a discussion or forum topic), when it is in one.
    public var threadTopID: Int32?

    public init(messageID: Int32, peer: PeerID? = nil, threadTopID: Int32? = nil) {
        self.messageID = messageID
        self.peer = peer
        self.threadTopID = threadTopID
    }
}

/// Where a forwarded message came from: its first author (nil when hidden), its original date, and the channel post
/// it was when it was one.
public struct ForwardHeader: Hashable, Sendable, Codable {
    public var author: PeerID?
    public var date: Int32
    public var source: MessageID?

    public init(author: PeerID?, date: Int32, source: MessageID? = nil) {
        self.author = author
        self.date = date
        self.source = source
    }
}
