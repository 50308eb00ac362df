import Postbox
import TL

/// Drafts (`messages.saveDraft`) and notification settings (`account.updateNotifySettings`,
/// `account.getNotifySettings`) per chat, kept in the store (`DraftView`, `NotificationSettingsView`); the account's
/// other devices learn each change as `updateDraftMessage` / `updateNotifySettings`.
extension Account {
    /// Saves the draft of a chat, or removes it with empty text and no reply. Shown at once and sent through the
    /// operation log.
    public func saveDraft(_ text: String, in peer: PeerID, replyTo: Int32? = nil) async throws {
        _ = try await inputPeer(peer)
        try await queue(.draft(peer, text: text, replyTo: replyTo))
    }

    /// The stored draft of a chat.
    public func draft(in peer: PeerID) async throws -> Draft? {
        try await postbox.read { try $0.draft(peer) }
    }

    /// Sets a chat's notification settings (nil fields: unset). Shown at once and sent through the operation log.
    public func setNotificationSettings(_ settings: NotificationSettings, for peer: PeerID) async throws {
        _ = try await inputPeer(peer)
        try await queue(.notificationSettings(peer, settings))
    }

    /// Reads a chat's notification settings from the server and stores them.
    @discardableResult
    public func notificationSettings(of peer: PeerID) async throws -> NotificationSettings {
        let settings = StoreMapping.notificationSettings(try await network.send(API.functions.account.GetNotifySettings(
            peer: .inputNotifyPeer(.init(peer: try await inputPeer(peer))))))
        _ = try await postbox.transaction { try $0.setNotificationSettings(peer, settings) }
        return settings
    }

    /// Reads the notification settings of a kind of chat (every private chat, group or channel) from the server and
    /// stores them; the account's other devices' changes arrive as `updateNotifySettings` and are stored too.
    @discardableResult
    public func notificationSettings(of kind: ChatKind) async throws -> NotificationSettings {
        let peer: API.InputNotifyPeer = switch kind {
        case .privateChats: .inputNotifyUsers(.init())
        case .groups: .inputNotifyChats(.init())
        case .channels: .inputNotifyBroadcasts(.init())
        }
        let settings = StoreMapping.notificationSettings(try await network.send(API.functions.account.GetNotifySettings(peer: peer)))
        _ = try await postbox.transaction { try $0.setNotificationSettings(kind, settings) }
        return settings
    }
}
