/// The rows the server keeps, independent of the storage backend. Message and update payloads that are TL are kept
/// as TL bytes (the wire format is the server's exchange format, and it is what is sent back).

/// A peer as the server stores it: a type and an id (Telegram's user, basic group and channel ids are separate spaces).
public enum PeerRef: Hashable, Sendable {
    case user(Int64)
    case chat(Int64)
    case channel(Int64)

    /// Stored as (type, id).
    public var typeCode: Int { switch self { case .user: 0; case .chat: 1; case .channel: 2 } }
    public var id: Int64 { switch self { case let .user(id), let .chat(id), let .channel(id): id } }
    /// The user's id, for a user.
    public var userID: Int64? { if case let .user(id) = self { id } else { nil } }

    public init?(typeCode: Int, id: Int64) {
        switch typeCode {
        case 0: self = .user(id)
        case 1: self = .chat(id)
        case 2: self = .channel(id)
        default: return nil
        }
    }
}

public struct UserRecord: Sendable, Equatable {
    public var id: Int64
    public var accessHash: Int64
    public var phone: String
    public var firstName: String
    public var lastName: String
    public var username: String?
    public var homeDC: Int32
    /// Bots get larger channel difference pages (100,000 instead of 100).
    public var isBot: Bool
    /// The profile's bio (`userFull.about`), empty when unset.
    public var about: String
    /// How many users this user blocked: a send to a user who blocked nobody skips the look-up of a block (the row is
    /// read and cached for the send anyway).
    public var blockedCount: Int32
    /// The current profile photo as `UserProfilePhoto` TL bytes (nil: none): kept on the row, so that every rendering of
    /// the user shows it without another read.
    public var photo: [UInt8]?

    public init(id: Int64, accessHash: Int64, phone: String, firstName: String, lastName: String = "", username: String? = nil,
                homeDC: Int32, isBot: Bool = false, about: String = "", blockedCount: Int32 = 0, photo: [UInt8]? = nil) {
        self.id = id
        self.accessHash = accessHash
        self.phone = phone
        self.firstName = firstName
        self.lastName = lastName
        self.username = username
        self.homeDC = homeDC
        self.isBot = isBot
        self.about = about
        self.blockedCount = blockedCount
        self.photo = photo
    }
}

/// A user's common update box (core.telegram.org/api/updates): pts covers private chats and basic groups, qts the
/// secondary box (no producer yet), seq/date the ordered `updates` containers. Message ids of the box are numbered
/// per user, as Telegram numbers them.
public struct UserState: Sendable, Equatable {
    public var pts: Int32 = 0
    public var qts: Int32 = 0
    public var seq: Int32 = 0
    public var date: Int32 = 0
    /// The id the next message stored in this user's box gets.
    public var nextMessageID: Int32 = 1

    public init(pts: Int32 = 0, qts: Int32 = 0, seq: Int32 = 0, date: Int32 = 0, nextMessageID: Int32 = 1) {
        self.pts = pts
        self.qts = qts
        self.seq = seq
        self.date = date
        self.nextMessageID = nextMessageID
    }
}

/// One message in one user's box (a private message is stored twice: in the sender's box and the recipient's).
public struct StoredMessage: Sendable, Equatable {
    public var owner: Int64
    public var id: Int32
    /// The dialog it belongs to, as the owner sees it.
    public var peer: PeerRef
    public var fromID: Int64?
    public var out: Bool
    public var date: Int32
    public var text: String
    /// `Vector<MessageEntity>` as TL bytes; empty when there are none.
    public var entities: [UInt8]
    public var editDate: Int32?
    /// The id that links the copies of one message: for a private message, its id in the other party's box (nil for
    /// messages to oneself); for a basic-group message, its id in its sender's box.
    public var counterpartID: Int32?
    /// A service message's `MessageAction` as TL bytes (nil for a normal message).
    public var action: [UInt8]?
    /// The message it replies to, by its id in this owner's box (nil: no reply, or the replied copy is not in this box).
    public var replyTo: Int32?
    /// Pinned in its chat, as this owner sees it.
    public var pinned: Bool
    /// A forwarded message's `MessageFwdHeader` as TL bytes (nil: not forwarded).
    public var forward: [UInt8]?
    /// The message's `MessageMedia` as TL bytes (nil: text only).
    public var media: [UInt8]?
    /// What the media is, for the search filters.
    public var mediaKind: MediaKind
    /// The album it belongs to (`messages.sendMultiMedia`).
    public var groupedID: Int64?

    public init(owner: Int64, id: Int32, peer: PeerRef, fromID: Int64?, out: Bool, date: Int32, text: String,
                entities: [UInt8] = [], editDate: Int32? = nil, counterpartID: Int32? = nil, action: [UInt8]? = nil,
                replyTo: Int32? = nil, pinned: Bool = false, forward: [UInt8]? = nil, media: [UInt8]? = nil,
                mediaKind: MediaKind = .none, groupedID: Int64? = nil) {
        self.owner = owner
        self.id = id
        self.peer = peer
        self.fromID = fromID
        self.out = out
        self.date = date
        self.text = text
        self.entities = entities
        self.editDate = editDate
        self.counterpartID = counterpartID
        self.action = action
        self.replyTo = replyTo
        self.pinned = pinned
        self.forward = forward
        self.media = media
        self.mediaKind = mediaKind
        self.groupedID = groupedID
    }
}

/// One entry of a user's seq log (core.telegram.org/api/updates#updates-sequence): an `Update` without pts (a user's
/// new name, …) as TL bytes, with the seq of the `updates` container that carried it.
public struct StoredSeqEvent: Sendable, Equatable {
    public var seq: Int32
    public var date: Int32
    public var update: [UInt8]

    public init(seq: Int32, date: Int32, update: [UInt8]) {
        self.seq = seq
        self.date = date
        self.update = update
    }
}

/// One entry of a user's update log: the `Update` as TL bytes, with the pts it moved the box to.
public struct StoredEvent: Sendable, Equatable {
    public var pts: Int32
    public var ptsCount: Int32
    public var date: Int32
    public var update: [UInt8]

    public init(pts: Int32, ptsCount: Int32, date: Int32, update: [UInt8]) {
        self.pts = pts
        self.ptsCount = ptsCount
        self.date = date
        self.update = update
    }
}

public struct DialogRecord: Sendable, Equatable {
    public var owner: Int64
    public var peer: PeerRef
    public var topMessage: Int32
    public var topDate: Int32
    public var readInboxMaxID: Int32
    public var readOutboxMaxID: Int32
    public var unreadCount: Int32

    public init(owner: Int64, peer: PeerRef, topMessage: Int32 = 0, topDate: Int32 = 0, readInboxMaxID: Int32 = 0,
                readOutboxMaxID: Int32 = 0, unreadCount: Int32 = 0) {
        self.owner = owner
        self.peer = peer
        self.topMessage = topMessage
        self.topDate = topDate
        self.readInboxMaxID = readInboxMaxID
        self.readOutboxMaxID = readOutboxMaxID
        self.unreadCount = unreadCount
    }
}

/// What a retried `messages.sendMessage` (same `random_id`) answers: the first call's result.
public struct SentRecord: Sendable, Equatable {
    public var messageID: Int32
    public var pts: Int32
    public var date: Int32
    /// The channel the message went to (its pts is the channel's); nil for the user's own box.
    public var channelID: Int64?

    public init(messageID: Int32, pts: Int32, date: Int32, channelID: Int64? = nil) {
        self.messageID = messageID
        self.pts = pts
        self.date = date
        self.channelID = channelID
    }
}

/// A page of history, bounded by ids (the storage-side half of `messages.getHistory`).
public struct IDRange: Sendable, Equatable {
    /// Only ids strictly above `above` and strictly below `below`.
    public var above: Int32
    public var below: Int32
    public var newestFirst: Bool
    public var limit: Int
    /// Rows skipped first, in the database (SQL `OFFSET`): a large `add_offset` never brings rows into the server.
    public var skip: Int

    public init(above: Int32, below: Int32, newestFirst: Bool, limit: Int, skip: Int = 0) {
        self.above = above
        self.below = below
        self.newestFirst = newestFirst
        self.limit = limit
        self.skip = skip
    }
}

/// What a message's media is, as the search filters group it (core.telegram.org/type/MessagesFilter), stored beside
/// the media so that a filtered search is an index range, not a decoding of every message.
public enum MediaKind: Int, Sendable, CaseIterable {
    case none = 0
    case photo = 1
    case video = 2
    /// A file that is none of the others.
    case document = 3
    /// `documentAttributeAudio` without `voice`.
    case music = 4
    case voice = 5
    case roundVideo = 6
    case gif = 7

    /// An unknown code (a later build's kind) reads as a document: shown, and found by the documents filter.
    init(code: Int64) {
        self = MediaKind(rawValue: Int(code)) ?? .document
    }
}
