import Postbox

/// One row of a chat list as a screen draws it (TDLib's `chat` with its `lastMessage`, `unreadCount` and
/// `notificationSettings`): everything the row shows, read in the same transaction as the list's order.
public struct ChatRow: Equatable, Sendable {
    public let peer: PeerID
    /// A user's name (their @username when they have none), a group's or channel's title; "" for a chat whose peer
    /// is not stored yet.
    public let title: String
    /// Incoming messages above the chat's read mark.
    public let unreadCount: Int32
    /// The newest message: the newest pending send when it is newer than what the server confirmed.
    public let lastMessage: Message?
    /// `lastMessage` is a send the server has not confirmed yet (or refused: its flags say `.failed`).
    public let lastMessageIsPending: Bool
    /// The other side read outgoing messages up to this id (✓✓ for outgoing messages at or below it).
    public let outgoingReadMaxID: Int32
    /// Position among pinned chats (lower first), nil when not pinned.
    public let pinnedIndex: Int32?
    /// Muted until this Unix time, when the chat's own settings say so (`isMuted(at:)`).
    public let mutedUntil: Int32?
    /// The chat's saved draft.
    public let draft: String?

    /// Whether notifications of the chat are muted at `now` (Unix time).
    public func isMuted(at now: Int32) -> Bool { mutedUntil.map { $0 > now } ?? false }
}

/// The chat list as rows (`ChatRow`), updated by every commit that changes what a row shows: the list's order, a
/// message (a pending send included), a peer's name, a read state, a draft or a chat's notification settings. Its
/// keys are wildcards, so a chat that appears or a row whose read state alone changes is redrawn without reopening.
public final class ChatRowsView: PostboxView {
    public let count: Int
    public var keys: Set<ViewKey> { [.chatList, .anyHistory, .anyPeer, .anyReadState, .anyDraft, .anyNotificationSettings] }

    public init(count: Int) {
        self.count = count
    }

    public func load(_ transaction: Transaction) throws -> [ChatRow] {
        try transaction.chatList(limit: count).map { entry in try Self.row(entry, in: transaction) }
    }

    static func row(_ entry: ChatListEntry, in transaction: Transaction) throws -> ChatRow {
        let peer = entry.peer
        let confirmed = try entry.topMessage.flatMap { try transaction.message($0.id) }
        let pending = try transaction.latestMessages(peer: peer, namespace: OutboxEntry.localMessages, limit: 1).first
        let pendingIsNewer = pending.map { pending in confirmed.map { pending.timestamp >= $0.timestamp } ?? true } ?? false
        let readState = try transaction.readState(peer, namespace: StoreMapping.cloudMessages)
        return ChatRow(
            peer: peer, title: try transaction.peer(peer)?.displayTitle ?? "", unreadCount: readState.unreadCount,
            lastMessage: pendingIsNewer ? pending : confirmed, lastMessageIsPending: pendingIsNewer,
            outgoingReadMaxID: readState.maxOutgoingReadID, pinnedIndex: entry.pinnedIndex,
            mutedUntil: try transaction.notificationSettings(peer)?.muteUntil, draft: try transaction.draft(peer)?.text)
    }
}

extension Account {
    /// A live chat list of ready-made rows (`ChatRowsView`): title, unread count, last message with a pending send,
    /// read mark, pin, mute and draft per chat. Combine with `typingMarks()` and `PresencesView` for typing and online
    /// marks.
    public nonisolated func chatRows(count: Int = 50) -> AsyncThrowingStream<ViewUpdate<[ChatRow]>, any Error> {
        postbox.view(ChatRowsView(count: count))
    }
}
