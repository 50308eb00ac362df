import Postbox
import TL

/// Drafts and notification settings as the store keeps them.
extension StoreMapping {
    /// A draft as stored: text and the replied message's id; nil for `draftMessageEmpty` (no draft).
    public static func draft(_ draft: API.DraftMessage) -> Draft? {
        guard case let .draftMessage(value) = draft else { return nil }
        let replyTo: Int32? = if case let .inputReplyToMessage(reply)? = value.replyTo { reply.replyToMsgId } else { nil }
        return Draft(text: value.message, replyTo: replyTo, date: value.date)
    }

    /// Notification settings as stored: the mute date, silence and previews (sounds are not kept).
    public static func notificationSettings(_ settings: API.PeerNotifySettings) -> NotificationSettings {
        guard case let .peerNotifySettings(value) = settings else { return NotificationSettings() }
        return NotificationSettings(muteUntil: value.muteUntil, silent: value.silent, showPreviews: value.showPreviews)
    }
}
