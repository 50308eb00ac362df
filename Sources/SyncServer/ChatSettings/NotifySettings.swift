import MTProto
import TL

/// Notification settings (`account.updateNotifySettings`, `account.getNotifySettings`): per chat, or for every private
/// chat, basic group or channel at once, as Telegram scopes them. What is not set is left unset (clients apply their
/// defaults). A change is told to the user's sessions as `updateNotifySettings`, with the next seq. Forum topics and
/// communities are not kept (`PEER_ID_INVALID`); sounds and story settings are not kept either.
enum NotifySettings {
    static func scope(_ input: API.InputNotifyPeer, me: Int64, in tx: any StorageReader) throws -> SettingScope {
        switch input {
        case let .inputNotifyPeer(value): .peer(try PeerResolution.peer(value.peer, me: me, in: tx))
        case .inputNotifyUsers: .users
        case .inputNotifyChats: .chats
        case .inputNotifyBroadcasts: .broadcasts
        case .inputNotifyForumTopic, .inputNotifyCommunity: throw RPCError.badRequest("PEER_ID_INVALID")
        }
    }

    static func notifyPeer(_ scope: SettingScope) -> API.NotifyPeer {
        switch scope {
        case let .peer(peer): .notifyPeer(.init(peer: TLRendering.peer(peer)))
        case .users: .notifyUsers(.init())
        case .chats: .notifyChats(.init())
        case .broadcasts: .notifyBroadcasts(.init())
        }
    }

    /// The stored settings, or none set.
    static func stored(owner: Int64, scope: SettingScope, in tx: any StorageReader) throws -> API.PeerNotifySettings {
        try tx.peerSetting(.notifySettings, owner: owner, scope: scope).flatMap { try? API.PeerNotifySettings.deserialize($0) }
            ?? TLRendering.notifySettings()
    }

    /// The fields this server keeps of what a client sent: previews, silence, and the mute date (not before 0).
    static func settings(from input: API.InputPeerNotifySettings) -> API.PeerNotifySettings {
        guard case let .inputPeerNotifySettings(value) = input else { return TLRendering.notifySettings() }
        return .peerNotifySettings(.init(showPreviews: value.showPreviews, silent: value.silent, muteUntil: value.muteUntil.map { max(0, $0) }))
    }

    /// Stores `settings` for `scope`; nil when they are the stored ones already.
    static func update(_ scope: SettingScope, to settings: API.PeerNotifySettings, me: Int64, date: Int32,
                       in tx: any StorageWriter) throws -> SequencedUpdate? {
        guard try stored(owner: me, scope: scope, in: tx) != settings else { return nil }
        let empty = settings == TLRendering.notifySettings()
        try tx.setPeerSetting(.notifySettings, owner: me, scope: scope, value: empty ? nil : settings.serialized(), date: date)
        let update = API.Update.updateNotifySettings(.init(peer: notifyPeer(scope), notifySettings: settings))
        let named: UserRecord? = if case let .peer(.user(id)) = scope { try tx.user(id: id) } else { nil }
        return try SequencedUpdate.record(update, naming: named, to: [me], date: date, in: tx)
    }
}
