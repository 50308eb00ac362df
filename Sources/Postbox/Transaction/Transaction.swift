import Foundation
import GRDB

/// One transaction's access to the store. Valid only inside `Postbox.transaction`; every change it makes is also
/// recorded in `changes`. Message operations keep read states, unread counts and the chat list consistent.
public final class Transaction {
    let db: Database
    let seed: SeedConfiguration
    /// What this transaction changed so far: replayed against the live views once it commits.
    public internal(set) var changes = ChangeRecord()
    /// Peers known to be initialized (seed holes written) in this transaction.
    var initializedPeers: Set<PeerID> = []
    /// Read states and chat-list entries changed by this transaction, written once at the end.
    var pendingReadStates: [ReadStateKey: ReadState] = [:]
    var pendingChatList: [PeerID: ChatListEntry] = [:]

    struct ReadStateKey: Hashable {
        let peer: PeerID
        let namespace: Int32
    }

    init(db: Database, seed: SeedConfiguration) {
        self.db = db
        self.seed = seed
    }

    /// Writes the pending read states and chat-list entries, then bumps the transaction version when anything
    /// changed (other processes compare it to notice commits). Returns the new version, nil when nothing changed.
    func finish() throws -> Int64? {
        try flushPendingReadStates()
        try flushPendingChatList()
        guard !changes.isEmpty else { return nil }
        let version = transactionVersion + 1
        try setMetadata(.transactionVersion, Self.encode(version))
        return version
    }

    enum MetadataKey: Int64 {
        case cursor = 2
        case transactionVersion = 3
        case masterClientID = 4
        /// The chat list is known for top messages newer than this timestamp; absent once it is complete.
        case chatListHole = 5
        /// The hole tags of the seed configuration the stored peers were initialized with.
        case seededHoleTags = 6
    }

    /// The chat list's hole: entries with top messages at or below this timestamp may be missing (a new store starts
    /// with the whole list unknown). nil once the engine has loaded everything.
    public var chatListHole: Int32? {
        get throws { try metadata(.chatListHole).map { Int32(truncatingIfNeeded: Self.decodeInt64($0)) } }
    }

    /// Sets the chat list's hole: dialogs older than `timestamp` are not loaded yet (nil: the list is complete).
    public func setChatListHole(_ timestamp: Int32?) throws {
        if let timestamp {
            try setMetadata(.chatListHole, Self.encode(Int64(timestamp)))
        } else {
            try db.cachedStatement(sql: "DELETE FROM metadata WHERE key = ?").execute(arguments: [MetadataKey.chatListHole.rawValue])
        }
        changes.chatListHoleChanged = true
    }

    /// Seeds a new store and brings an existing one up to the seed configuration: tag spaces added since the peers
    /// were initialized get a hole over all ids for every known peer.
    func applySeed(isNewStore: Bool) throws {
        if isNewStore { try setMetadata(.chatListHole, Self.encode(Int64(Int32.max))) }
        // Stored as text: "1,8" for tags 1 and 8.
        let seeded = Set(try metadata(.seededHoleTags).map { String(decoding: $0, as: UTF8.self).split(separator: ",").compactMap { UInt32($0) } } ?? [])
        let added = seed.holeTags.filter { !seeded.contains($0.rawValue) }
        if !added.isEmpty, !isNewStore {
            let peers = try Int64.fetchAll(db.cachedStatement(sql: "SELECT peer FROM initialized_peers")).map(PeerID.init(rawValue:))
            for peer in peers {
                for namespace in seed.holeNamespaces {
                    for tag in added {
                        try addHole(HoleKey(peer: peer, namespace: namespace, space: .tag(tag)), SeedConfiguration.allIDs)
                    }
                }
            }
        }
        if !added.isEmpty || isNewStore {
            let all = seeded.union(seed.holeTags.map(\.rawValue)).sorted()
            try setMetadata(.seededHoleTags, Array(all.map(String.init).joined(separator: ",").utf8))
        }
    }

    // MARK: Metadata

    /// The sync cursor: an opaque blob the sync engine owns (pts, qts, date, seq, …).
    public var cursor: [UInt8]? {
        get throws { try metadata(.cursor) }
    }

    /// Stores the sync cursor (the engine's state blob), written with the data it describes.
    public func setCursor(_ value: [UInt8]) throws {
        try setMetadata(.cursor, value)
        changes.cursorChanged = true
    }

    /// Incremented by every non-empty commit.
    public var transactionVersion: Int64 {
        (try? metadata(.transactionVersion)).flatMap { $0 }.map(Self.decodeInt64) ?? 0
    }

    /// Which process syncs when several share the database.
    public var masterClientID: Int64? {
        get throws { try metadata(.masterClientID).map(Self.decodeInt64) }
    }

    /// Records which process syncs this store (the master client).
    public func setMasterClientID(_ id: Int64) throws {
        try setMetadata(.masterClientID, Self.encode(id))
    }

    private func metadata(_ key: MetadataKey) throws -> [UInt8]? {
        try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM metadata WHERE key = ?"), arguments: [key.rawValue]).map { [UInt8]($0) }
    }

    private func setMetadata(_ key: MetadataKey, _ value: [UInt8]) throws {
        try db.cachedStatement(sql: "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .execute(arguments: [key.rawValue, Data(value)])
    }

    static func encode(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    static func decodeInt64(_ bytes: [UInt8]) -> Int64 { bytes.prefix(8).reduce(0) { $0 << 8 | Int64($1) } }

    // MARK: Preferences, channel states

    /// Stores a preference (opaque bytes under a key).
    public func setPreference(_ key: String, _ value: [UInt8]) throws {
        try db.cachedStatement(sql: "INSERT INTO preferences (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .execute(arguments: [key, Data(value)])
        changes.preferences.insert(key)
    }

    /// Removes a preference.
    public func removePreference(_ key: String) throws {
        try db.cachedStatement(sql: "DELETE FROM preferences WHERE key = ?").execute(arguments: [key])
        changes.preferences.insert(key)
    }

    /// A preference's bytes, nil when not set.
    public func preference(_ key: String) throws -> [UInt8]? {
        try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM preferences WHERE key = ?"), arguments: [key]).map { [UInt8]($0) }
    }

    /// Stores a channel's state (its pts and what the engine keeps with it).
    public func setChannelState(_ peer: PeerID, _ state: [UInt8]) throws {
        try db.cachedStatement(sql: "INSERT INTO channel_states (peer, state) VALUES (?, ?) ON CONFLICT(peer) DO UPDATE SET state = excluded.state")
            .execute(arguments: [peer.rawValue, Data(state)])
        changes.channelStates.insert(peer)
    }

    /// A channel's stored state, nil when none.
    public func channelState(_ peer: PeerID) throws -> [UInt8]? {
        try Data.fetchOne(db.cachedStatement(sql: "SELECT state FROM channel_states WHERE peer = ?"), arguments: [peer.rawValue]).map { [UInt8]($0) }
    }
}
