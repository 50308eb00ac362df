import Foundation
import GRDB

/// Typed peers (`Peer`), one row each in the `peers` table's columns. A row this build cannot read (a kind it does not
/// know) reads as no peer: the engine learns it again from the server rather than failing every read.
extension Transaction {
    /// Stores a peer, replacing what was stored under its id.
    public func updatePeer(_ peer: Peer) throws {
        let row = PeerColumns(peer)
        try db.cachedStatement(sql: """
            INSERT INTO peers (peer, kind, access_hash, name, last_name, username, phone, flags, participants, admin_rights,
                               banned_rights, presence, presence_date, default_banned_rights)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(peer) DO UPDATE SET kind = excluded.kind, access_hash = excluded.access_hash, name = excluded.name,
                last_name = excluded.last_name, username = excluded.username, phone = excluded.phone, flags = excluded.flags,
                participants = excluded.participants, admin_rights = excluded.admin_rights,
                banned_rights = excluded.banned_rights, presence = excluded.presence, presence_date = excluded.presence_date,
                default_banned_rights = excluded.default_banned_rights
            """).execute(arguments: row.arguments)
        changes.peers.insert(peer.id)
    }

    /// Stores several peers (in id order, so equal batches write alike).
    public func updatePeers(_ peers: [Peer]) throws {
        for peer in peers.sorted(by: { $0.id < $1.id }) { try updatePeer(peer) }
    }

    /// A stored peer, nil when it is unknown.
    public func peer(_ id: PeerID) throws -> Peer? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(PeerColumns.list) FROM peers WHERE peer = ?"), arguments: [id.rawValue])
            .flatMap(PeerColumns.peer(from:))
    }

    /// The stored user or channel whose username is `username` (any letter case), known in full (not a `min` copy,
    /// which carries no usable access hash); nil when none is. A scan of the peers: a store holds thousands, not
    /// millions, and a lookup is a person typing a name.
    public func peer(username: String) throws -> Peer? {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT \(PeerColumns.list) FROM peers WHERE username = ? COLLATE NOCASE ORDER BY peer"),
                         arguments: [username])
            .compactMap(PeerColumns.peer(from:)).first { !$0.isMin }
    }

    /// Every stored peer, in key order (an engine loads what it needs to address peers at start).
    public func allPeers() throws -> [Peer] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT \(PeerColumns.list) FROM peers ORDER BY peer")).compactMap(PeerColumns.peer(from:))
    }

    /// Peers a store of schema 2 or older kept in the engine's own encoding, which only the engine can read: it
    /// converts them (`updatePeer`) and then calls `removeLegacyPeers`.
    public func legacyPeers() throws -> [(PeerID, [UInt8])] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT peer, data FROM legacy_peers ORDER BY peer")).map { row in
            let data: Data = row["data"]
            return (PeerID(rawValue: row["peer"]), [UInt8](data))
        }
    }

    /// Whether `legacyPeers` has anything (what an engine checks at start, without reading the rows).
    public func hasLegacyPeers() throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM legacy_peers)")) ?? false
    }

    /// Drops the peers of `legacyPeers` once converted.
    public func removeLegacyPeers() throws {
        try db.execute(sql: "DELETE FROM legacy_peers")
    }
}

/// A peer as the `peers` table's columns: `name` is a user's first name or a chat's title; `presence` a `Presence`
/// case number with its date.
private struct PeerColumns {
    static let list = "peer, kind, access_hash, name, last_name, username, phone, flags, participants, admin_rights, banned_rights, presence, presence_date, default_banned_rights"

    private enum Kind: Int64 { case user = 0, group = 1, channel = 2 }

    let arguments: StatementArguments

    init(_ peer: Peer) {
        switch peer {
        case let .user(user):
            let (presence, date) = Self.presenceColumns(user.presence)
            arguments = [user.id.rawValue, Kind.user.rawValue, user.accessHash, user.firstName, user.lastName, user.username, user.phone,
                         user.flags.rawValue, nil, nil, nil, presence, date, nil]
        case let .group(group):
            arguments = [group.id.rawValue, Kind.group.rawValue, nil, group.title, "", nil, nil, group.flags.rawValue,
                         Int64(group.participantsCount), nil, nil, nil, nil, group.defaultBannedRights.map { Int64($0) }]
        case let .channel(channel):
            arguments = [channel.id.rawValue, Kind.channel.rawValue, channel.accessHash, channel.title, "", channel.username, nil,
                         channel.flags.rawValue, channel.participantsCount.map { Int64($0) },
                         channel.adminRights.map { Int64($0) }, channel.bannedRights.map { Int64($0) }, nil, nil,
                         channel.defaultBannedRights.map { Int64($0) }]
        }
    }

    static func peer(from row: Row) -> Peer? {
        let id = PeerID(rawValue: row["peer"])
        guard let kind = Kind(rawValue: row["kind"]) else { return nil }
        let flags: Int64 = row["flags"]
        let defaults: Int64? = row["default_banned_rights"]
        let defaultBannedRights = defaults.map { UInt32(truncatingIfNeeded: $0) }
        switch kind {
        case .user:
            return .user(UserPeer(id: id, accessHash: row["access_hash"], firstName: row["name"], lastName: row["last_name"],
                                  username: row["username"], phone: row["phone"], flags: .init(rawValue: flags),
                                  presence: presence(code: row["presence"], date: row["presence_date"])))
        case .group:
            let count: Int64? = row["participants"]
            return .group(GroupPeer(id: id, title: row["name"], participantsCount: Int32(clamping: count ?? 0), flags: .init(rawValue: flags),
                                    defaultBannedRights: defaultBannedRights))
        case .channel:
            let count: Int64? = row["participants"], admin: Int64? = row["admin_rights"], banned: Int64? = row["banned_rights"]
            return .channel(ChannelPeer(id: id, accessHash: row["access_hash"], title: row["name"], username: row["username"],
                                        participantsCount: count.map { Int32(clamping: $0) }, flags: .init(rawValue: flags),
                                        adminRights: admin.map { UInt32(truncatingIfNeeded: $0) },
                                        bannedRights: banned.map { UInt32(truncatingIfNeeded: $0) }, defaultBannedRights: defaultBannedRights))
        }
    }

    private static func presenceColumns(_ presence: Presence?) -> (Int64?, Int64?) {
        switch presence {
        case nil: (nil, nil)
        case let .online(expires)?: (1, Int64(expires))
        case let .offline(wasOnline)?: (2, Int64(wasOnline))
        case .recently?: (3, nil)
        case .lastWeek?: (4, nil)
        case .lastMonth?: (5, nil)
        case .longAgo?: (6, nil)
        }
    }

    private static func presence(code: Int64?, date: Int64?) -> Presence? {
        let date = Int32(clamping: date ?? 0)
        switch code {
        case 1: return .online(expires: date)
        case 2: return .offline(wasOnline: date)
        case 3: return .recently
        case 4: return .lastWeek
        case 5: return .lastMonth
        case 6: return .longAgo
        default: return nil
        }
    }
}
