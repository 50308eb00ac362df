import Foundation
import Postbox

/// A change the app made to the account that the server must learn: written to the store at once and to the operation
/// log in the same transaction, then sent in order by the log's worker (as Telegram-iOS's `ManagedSynchronize…`
/// operations). A refusal rolls the store back and reaches the app as `AccountEvent.changeRefused`.
///
/// Sends and forwards are not here: they own local messages and have a worker of their own (`OutboxEntry`); read
/// marks neither (`ReadEntry`).
public enum AccountChange: Codable, Equatable, Sendable {
    /// `messages.updatePinnedMessage`.
    case pinMessage(MessageID, pinned: Bool, oneSide: Bool)
    /// `messages.toggleDialogPin`.
    case pinChat(PeerID, pinned: Bool)
    /// `messages.reorderPinnedDialogs`; with `force`, pinned chats not in the order are unpinned.
    case pinnedChatOrder([PeerID], force: Bool)
    /// `messages.saveDraft`; empty text and no reply removes the draft.
    case draft(PeerID, text: String, replyTo: Int32?)
    /// `account.updateNotifySettings` for one chat.
    case notificationSettings(PeerID, NotificationSettings)
    /// `contacts.addContact`.
    case addContact(PeerID, firstName: String, lastName: String)
    /// `contacts.deleteContacts`.
    case deleteContacts([PeerID])
    /// `contacts.block` / `contacts.unblock`.
    case blocked(PeerID, Bool)
    /// `account.updateProfile`: nil fields unchanged.
    case profile(firstName: String?, lastName: String?, about: String?)
    /// `account.updateUsername`; nil removes it.
    case username(String?)
    /// `messages.editMessage` of a message's text.
    case edit(MessageID, text: String)
    /// `messages.deleteMessages` (or `channels.deleteMessages`), for both sides with `revoke`.
    case delete([MessageID], revoke: Bool)

    /// Changes with equal keys replace each other while they wait (the later one is what the server must end up with):
    /// a pin and an unpin of one message, two drafts of one chat, a name typed twice. Edits of one message too. Deletes
    /// and contact removals are kept each.
    var mergeKey: String? {
        switch self {
        case let .pinMessage(id, _, _): "pin \(id)"
        case let .pinChat(peer, _): "pinChat \(peer)"
        case .pinnedChatOrder: "pinnedChatOrder"
        case let .draft(peer, _, _): "draft \(peer)"
        case let .notificationSettings(peer, _): "notify \(peer)"
        case let .addContact(peer, _, _): "contact \(peer)"
        case let .blocked(peer, _): "blocked \(peer)"
        case .username: "username"
        case let .edit(id, _): "edit \(id)"
        case .profile, .deleteContacts, .delete: nil
        }
    }

    /// The peers the request addresses (each must be known to the store when it is sent).
    var peers: [PeerID] {
        switch self {
        case let .pinMessage(id, _, _), let .edit(id, _): [id.peer]
        case let .pinChat(peer, _), let .draft(peer, _, _), let .notificationSettings(peer, _), let .addContact(peer, _, _),
             let .blocked(peer, _): [peer]
        case let .pinnedChatOrder(peers, _), let .deleteContacts(peers): peers
        case let .delete(ids, _): Array(Set(ids.map(\.peer))).sorted()
        case .profile, .username: []
        }
    }
}

/// What the store held before a change, so that a refusal can put it back.
enum StoredBefore: Codable, Equatable, Sendable {
    case pinned(MessageID, Bool?)
    case pinnedChats([PeerID])
    case draft(PeerID, Draft?)
    case notificationSettings(PeerID, NotificationSettings?)
    case contacts([PeerID: ContactEntry])
    case blocked(PeerID, Bool)
    case selfNames(PeerID, firstName: String, lastName: String, username: String?)
    case text(MessageID, String)
    case messages([Message])
    case about(PeerID, String?)
    indirect case several([StoredBefore])
    case nothing
}

/// One logged account change: the change, what the store held before it (of the first change merged into it), and
/// whether it changes nothing the server knows (a pin undone before it was sent: the entry is dropped, not sent).
struct AccountChangeEntry: Codable, Equatable, Sendable {
    /// The operation-log tag of account changes.
    static let tag: Int32 = 3

    var change: AccountChange
    var before: StoredBefore

    init(change: AccountChange, before: StoredBefore) {
        self.change = change
        self.before = before
    }

    /// nil when the stored bytes are not an entry this build reads (a damaged entry is refused, not retried forever).
    init?(_ contents: [UInt8]) {
        guard let entry = try? JSONDecoder().decode(Self.self, from: Data(contents)) else { return nil }
        self = entry
    }

    var contents: [UInt8] { (try? [UInt8](JSONEncoder().encode(self))) ?? [] }

    /// Whether the change puts back what the store held before its first merged change, so nothing needs sending.
    var undoesItself: Bool {
        switch (change, before) {
        case let (.pinMessage(_, pinned, _), .pinned(_, old)): old == pinned
        case let (.pinChat(peer, pinned), .pinnedChats(old)): old.contains(peer) == pinned
        case let (.draft(_, text, replyTo), .draft(_, old)):
            (old?.text ?? "") == text && old?.replyTo == replyTo
        case let (.notificationSettings(_, settings), .notificationSettings(_, old)): old == settings
        case let (.blocked(_, blocked), .blocked(_, old)): old == blocked
        case let (.username(name), .selfNames(_, _, _, old)): (old ?? "") == (name ?? "")
        default: false
        }
    }
}
