/// Settings a user keeps per chat, stored as the TL bytes clients exchange (as entities and service actions are):
/// notification settings (`PeerNotifySettings`, also for every private chat, group or channel at once) and drafts
/// (`DraftMessage`).
public enum PeerSettingKind: Int, Sendable {
    case notifySettings = 0
    case draft = 1
}

/// Where a setting applies: one chat, or (notification settings) every private chat, basic group or channel.
public enum SettingScope: Hashable, Sendable {
    case peer(PeerRef)
    case users
    case chats
    case broadcasts

    /// Stored as (type, id): a peer's own, or 10–12 with id 0.
    public var typeCode: Int {
        switch self {
        case let .peer(peer): peer.typeCode
        case .users: 10
        case .chats: 11
        case .broadcasts: 12
        }
    }

    public var id: Int64 { if case let .peer(peer) = self { peer.id } else { 0 } }

    public init?(typeCode: Int, id: Int64) {
        switch typeCode {
        case 10: self = .users
        case 11: self = .chats
        case 12: self = .broadcasts
        default:
            guard let peer = PeerRef(typeCode: typeCode, id: id) else { return nil }
            self = .peer(peer)
        }
    }
}

public protocol PeerSettingStorageReader {
    func peerSetting(_ kind: PeerSettingKind, owner: Int64, scope: SettingScope) throws -> [UInt8]?
    /// The owner's settings of a kind, newest first, at most `limit`.
    func peerSettings(_ kind: PeerSettingKind, owner: Int64, limit: Int) throws -> [(scope: SettingScope, value: [UInt8])]
}

public protocol PeerSettingStorageWriter {
    /// Stores a setting, or removes it (nil).
    func setPeerSetting(_ kind: PeerSettingKind, owner: Int64, scope: SettingScope, value: [UInt8]?, date: Int32) throws
}
