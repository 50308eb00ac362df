import Postbox
import TL

/// Drafts (`messages.saveDraft`) and notification settings (`account.updateNotifySettings`,
/// `account.getNotifySettings`) per chat, kept in the store (`DraftView`, `NotificationSettingsView`); the account's
/// other devices learn each change as `updateDraftMessage` / `updateNotifySettings`.
extension Account {
    /// Saves the draft of a chat, or removes it with empty text and no reply. Stored at once.
    public func saveDraft(_ text: String, in peer: PeerID, replyTo: Int32? = nil) async throws {
        _ = try await network.send(API.functions.messages.SaveDraft(
            replyTo: replyTo.map { .inputReplyToMessage(.init(replyToMsgId: $0)) }, peer: try await inputPeer(peer), message: text))
        let draft = text.isEmpty && replyTo == nil ? nil : Draft(text: text, replyTo: replyTo, date: Int32(clamping: Int(environment.now())))
        _ = try await postbox.transaction { try $0.setDraft(peer, draft) }
    }

    /// The stored draft of a chat.
    public func draft(in peer: PeerID) async throws -> Draft? {
        try await postbox.read { try $0.draft(peer) }
    }

    /// Sets a chat's notification settings (nil fields: unset). Stored at once.
    public func setNotificationSettings(_ settings: NotificationSettings, for peer: PeerID) async throws {
        _ = try await network.send(API.functions.account.UpdateNotifySettings(
            peer: .inputNotifyPeer(.init(peer: try await inputPeer(peer))),
            settings: .inputPeerNotifySettings(.init(showPreviews: settings.showPreviews, silent: settings.silent,
                                                     muteUntil: settings.muteUntil))))
        _ = try await postbox.transaction { try $0.setNotificationSettings(peer, settings) }
    }

    /// Reads a chat's notification settings from the server and stores them.
    @discardableResult
    public func notificationSettings(of peer: PeerID) async throws -> NotificationSettings {
        let settings = StoreMapping.notificationSettings(try await network.send(API.functions.account.GetNotifySettings(
            peer: .inputNotifyPeer(.init(peer: try await inputPeer(peer))))))
        _ = try await postbox.transaction { try $0.setNotificationSettings(peer, settings) }
        return settings
    }
}
