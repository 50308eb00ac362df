/// The server's storage, behind one backend-neutral protocol: SQLite through GRDB is the default backend,
/// PostgreSQL through postgres-nio the one several processes share. Nothing here names SQL or a library type.
///
/// A transaction is a synchronous closure over a reader or writer: the handler reads counters, computes the new
/// rows and writes them inside one transaction, and nothing is acknowledged to a client before `write` returns
/// (the transaction committed). A backend whose driver is asynchronous runs each transaction on a thread of its
/// own and waits for its queries there. A backend may run a write closure more than once (SQLite's group commit
/// re-runs a batch when one of its writes fails half-way); only the committed run's result is returned, so a closure
/// must not act outside the transaction (draw random values and push updates outside it).
public protocol ServerStorage: Sendable {
    /// A read whose statements all see one snapshot of the data (a client's difference reads the box state and then
    /// its events, and both must describe the same moment).
    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T
    /// A read where each statement sees the latest commits and no transaction surrounds them: for reads that need
    /// no snapshot (rows that never change once committed, like logged events and users), where a backend that
    /// talks to its database over the network saves the round trips of opening and closing a transaction.
    func readLatest<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T
    /// `StorageReader.events(in:)` as a read of its own, like `readLatest` (the logs that pushes across processes
    /// read, where a backend may await its one statement without lending a thread to it).
    func events(in ranges: [LogRange]) async throws -> [Int64: [StoredEvent]]
    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T
    /// `write` for a request that names the boxes it will lock (`StorageWriter.lockBoxes`) before it runs: a backend
    /// that locks boxes may take those of a whole batch of writes at once, in one order. Only a hint; the write still
    /// locks what it uses.
    func write<T: Sendable>(locking boxes: [Int64], _ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T
    /// Refuses new writes (`ServerStorageError.closed`) and returns once the writes already accepted are committed
    /// or failed: after it, this instance changes nothing, so a successor may open the same data at once.
    func close() async
    /// Commits of every process sharing this storage, for pushes across processes; nil when this process is the
    /// only writer (SQLite).
    var commitFeed: CommitFeed? { get }
    /// Gauges of the storage's connections, read when metrics are scraped (none for SQLite).
    var gauges: [StorageGauge] { get }
}

extension ServerStorage {
    public var commitFeed: CommitFeed? { nil }
    public var gauges: [StorageGauge] { [] }

    public func readLatest<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T {
        try await read(body)
    }

    public func events(in ranges: [LogRange]) async throws -> [Int64: [StoredEvent]] {
        try await readLatest { try $0.events(in: ranges) }
    }

    public func write<T: Sendable>(locking boxes: [Int64], _ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T {
        try await write(body)
    }
}

public protocol StorageReader: ChannelStorageReader, ChatStorageReader, ContactStorageReader, ParticipantStorageReader,
    KeyStorageReader, LoginStorageReader, PeerSettingStorageReader, PresenceStorageReader, SessionClaimStorageReader, PinnedDialogStorageReader, UploadStorageReader, MediaFileStorageReader, ProfilePhotoStorageReader, ProfileStorageReader, SearchStorageReader {
    func user(id: Int64) throws -> UserRecord?
    func user(phone: String) throws -> UserRecord?
    /// Case-insensitive, as Telegram usernames are.
    func user(username: String) throws -> UserRecord?
    func maxUserID() throws -> Int64
    /// The user an auth key is logged in as.
    func userID(authKeyID: UInt64) throws -> Int64?
    /// The box state; a user with no events yet has the zero state.
    func state(user: Int64) throws -> UserState
    /// Events with pts above `afterPts`, in pts order, at most `limit`.
    func events(user: Int64, afterPts: Int32, limit: Int) throws -> [StoredEvent]
    /// The events of several users' logs at once (one range per user), in pts order per user, keyed by the users that
    /// have any; one statement where the backend can.
    func events(in ranges: [LogRange]) throws -> [Int64: [StoredEvent]]
    func message(owner: Int64, id: Int32) throws -> StoredMessage?
    /// Messages of one dialog in `range`, newest or oldest first.
    func messages(owner: Int64, peer: PeerRef, in range: IDRange) throws -> [StoredMessage]
    /// The newest id in the dialog sent at or before `date` (for `offset_date`).
    func lastMessageID(owner: Int64, peer: PeerRef, atOrBefore date: Int32) throws -> Int32?
    /// The id `range.skip` rows into the dialog's `range`, in its order (`limit` unused): where a page that skips
    /// rows starts, read from the dialog's index alone, so a skipped row costs an index entry and never a row.
    func messageID(owner: Int64, peer: PeerRef, in range: IDRange) throws -> Int32?
    /// The dialog's messages, counted up to `limit` (more count as `limit`): a bounded read whatever the chat's size.
    func messageCount(owner: Int64, peer: PeerRef, upTo limit: Int) throws -> Int
    /// The newest message of the dialog that `from` sent, at or below `id` in the owner's box (where a read by the
    /// owner leaves that sender's read-outbox mark).
    func lastMessage(owner: Int64, peer: PeerRef, from: Int64, atOrBelow id: Int32) throws -> StoredMessage?
    /// How many received messages of the dialog have ids above `id` (the unread count after a read up to `id`).
    func incomingCount(owner: Int64, peer: PeerRef, above id: Int32) throws -> Int
    /// Unread messages over all dialogs (`updates.state.unread_count`).
    func unreadTotal(owner: Int64) throws -> Int
    func dialog(owner: Int64, peer: PeerRef) throws -> DialogRecord?
    /// Dialogs by top message date, newest first, strictly older than `before` (date, peer) when given.
    func dialogs(owner: Int64, before: (date: Int32, topMessage: Int32)?, limit: Int) throws -> [DialogRecord]
    func dialogCount(owner: Int64) throws -> Int
    func sent(user: Int64, randomID: Int64) throws -> SentRecord?
}

/// A stretch of one user's update log: the events with `after < pts <= upTo`.
public struct LogRange: Sendable, Hashable {
    public let user: Int64
    public let after: Int32
    public let upTo: Int32

    public init(user: Int64, after: Int32, upTo: Int32) {
        self.user = user
        self.after = after
        self.upTo = upTo
    }
}

extension StorageReader {
    /// One log read per range (a backend on a local file pays nothing per statement).
    public func events(in ranges: [LogRange]) throws -> [Int64: [StoredEvent]] {
        var events: [Int64: [StoredEvent]] = [:]
        for range in ranges where range.upTo > range.after {
            let read = try self.events(user: range.user, afterPts: range.after, limit: Int(range.upTo - range.after))
                .filter { $0.pts <= range.upTo }
            if !read.isEmpty { events[range.user, default: []] += read }
        }
        return events
    }
}

public protocol StorageWriter: StorageReader, ChannelStorageWriter, ChatStorageWriter, ContactStorageWriter,
    KeyStorageWriter, LoginStorageWriter, ParticipantStorageWriter, PresenceStorageWriter, SessionClaimStorageWriter, PeerSettingStorageWriter, UploadStorageWriter, MediaFileStorageWriter, ProfilePhotoStorageWriter, PinnedDialogStorageWriter, ProfileStorageWriter {
    func insert(_ user: UserRecord) throws
    /// Binds (or with nil unbinds) an auth key to a user.
    func bind(authKeyID: UInt64, to user: Int64?) throws
    func setState(_ state: UserState, user: Int64) throws
    func upsert(_ message: StoredMessage) throws
    func deleteMessage(owner: Int64, id: Int32) throws
    func append(_ event: StoredEvent, user: Int64) throws
    func upsert(_ dialog: DialogRecord) throws
    /// Creates the dialog or raises it in one step: top message and date to at least the given ones, `unread` added
    /// to the unread count, the read-inbox mark to at least `readInboxTo`.
    func raiseDialog(owner: Int64, peer: PeerRef, topMessage: Int32, date: Int32, unread: Int32, readInboxTo: Int32) throws
    func recordSent(_ record: SentRecord, user: Int64, randomID: Int64) throws
    /// Takes these users' box counters for the rest of the transaction, in ascending id order, before a write that
    /// advances several of them: a backend shared by several processes locks them so that concurrent writers queue
    /// instead of deadlocking. SQLite's single writer needs nothing.
    func lockBoxes(users: [Int64]) throws
}

extension StorageWriter {
    public func lockBoxes(users: [Int64]) throws {}
}

/// Channels, their members, messages and update logs.
public protocol ChannelStorageReader {
    func channel(id: Int64) throws -> ChannelRecord?
    /// Case-insensitive, as Telegram usernames are.
    func channel(username: String) throws -> ChannelRecord?
    func maxChannelID() throws -> Int64
    func member(channel: Int64, user: Int64) throws -> ChannelMember?
    /// The channels `user` is a member of.
    func memberships(user: Int64) throws -> [ChannelMember]
    func memberIDs(channel: Int64) throws -> [Int64]
    func memberCount(channel: Int64) throws -> Int
    /// Events with pts above `afterPts`, in pts order, at most `limit`.
    func channelEvents(channel: Int64, afterPts: Int32, limit: Int) throws -> [StoredEvent]
    func channelMessage(channel: Int64, id: Int32) throws -> ChannelMessage?
    func channelMessages(channel: Int64, in range: IDRange) throws -> [ChannelMessage]
    /// The id `range.skip` rows into the channel's `range`, in its order, from the channel's id index alone.
    func channelMessageID(channel: Int64, in range: IDRange) throws -> Int32?
    /// The channel's messages, counted up to `limit` from its id index.
    func channelMessageCount(channel: Int64, upTo limit: Int) throws -> Int
    /// The newest id sent at or before `date` (for `offset_date`).
    func lastChannelMessageID(channel: Int64, atOrBefore date: Int32) throws -> Int32?
    /// Who sent the messages with ids in (`above`, `upTo`].
    func channelSenders(channel: Int64, above: Int32, upTo: Int32) throws -> [Int64]
    /// Messages above `id` not sent by `viewer` (a member's unread count).
    func channelUnreadCount(channel: Int64, above id: Int32, viewer: Int64) throws -> Int
}

public protocol ChannelStorageWriter {
    func upsert(_ channel: ChannelRecord) throws
    func upsert(_ member: ChannelMember) throws
    func removeMember(channel: Int64, user: Int64) throws
    func upsert(_ message: ChannelMessage) throws
    func deleteChannelMessage(channel: Int64, id: Int32) throws
    func appendChannelEvent(_ event: StoredEvent, channel: Int64) throws
}

/// Profiles, who has a user in a dialog, and each user's seq log.
public protocol ProfileStorageReader {
    /// The owners of dialogs with `peer` (who is told of its profile changes), by id, at most `limit`.
    func dialogOwners(peer: PeerRef, limit: Int) throws -> [Int64]
    /// The first `limit` seq events dated `date` or later, in seq order (a difference's `other_updates`: the client's
    /// state names a date, not a seq).
    func seqEvents(user: Int64, since date: Int32, limit: Int) throws -> [StoredSeqEvent]
    /// The seq events with `afterSeq < seq <= upTo`, in seq order.
    func seqEvents(user: Int64, afterSeq: Int32, upTo: Int32) throws -> [StoredSeqEvent]
}

public protocol ProfileStorageWriter {
    /// Replaces a user's row (names, username, bio); every cache of it forgets it once committed.
    func update(_ user: UserRecord) throws
    func appendSeqEvent(_ event: StoredSeqEvent, user: Int64) throws
}

/// What `messages.search` looks for in a chat, besides the ids of `IDRange`: normal messages (never service
/// messages) whose text contains `query` (ignoring the case of ASCII letters; empty: any), from `fromID` (0: anyone),
/// pinned only, dated within `dates`.
public struct MessageSearch: Sendable, Equatable {
    public var query: String
    public var fromID: Int64
    public var pinnedOnly: Bool
    public var dates: ClosedRange<Int32>
    /// The media kinds wanted, one bit per `MediaKind.rawValue` (0: any message).
    public var mediaKinds: Int64

    public init(query: String = "", fromID: Int64 = 0, pinnedOnly: Bool = false, dates: ClosedRange<Int32> = Int32.min...Int32.max,
                mediaKinds: Set<MediaKind> = []) {
        self.query = query
        self.fromID = fromID
        self.pinnedOnly = pinnedOnly
        self.dates = dates
        self.mediaKinds = mediaKinds.reduce(0) { $0 | (1 << Int64($1.rawValue)) }
    }
}

/// Messages of a chat that match a search, in the ranges and orders of history reads.
public protocol SearchStorageReader {
    func searchMessages(owner: Int64, peer: PeerRef, matching search: MessageSearch, in range: IDRange) throws -> [StoredMessage]
    func searchCount(owner: Int64, peer: PeerRef, matching search: MessageSearch) throws -> Int
    func searchChannelMessages(channel: Int64, matching search: MessageSearch, in range: IDRange) throws -> [ChannelMessage]
    func searchChannelCount(channel: Int64, matching search: MessageSearch) throws -> Int
}

/// Storage failures a handler turns into an `rpc_error 500` (the client retries) and logs.
public enum ServerStorageError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case newerSchema(found: Int, supported: Int)
    case corruptRow(table: String, reason: String)
    /// The storage was closed (the server is stopping).
    case closed
    /// The database server refused a statement (PostgreSQL's own message).
    case database(String)
    /// The database server could not be reached, or went away (refused, closed, starting up, not answering): what a
    /// wait may mend.
    case unavailable(String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "cannot open the server database at \(path): \(reason)"
        case let .newerSchema(found, supported): "the server database has schema \(found); this build supports up to \(supported)"
        case let .corruptRow(table, reason): "a row of \(table) cannot be read: \(reason)"
        case .closed: "the server storage is closed"
        case let .database(message): "the database failed: \(message)"
        case let .unavailable(message): "the database is unavailable: \(message)"
        }
    }
}
