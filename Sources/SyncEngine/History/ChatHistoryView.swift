import Postbox

/// A chat's history as a conversation screen shows it (TDLib's `getChatHistory` with its pending messages): the
/// server's messages around an anchor, and, when the window reaches the newest, the sends not yet confirmed after
/// them, marked. Holes inside the window are fetched while it is open (`MessageHistoryView`'s hole requests); the
/// `loading` marks say where one is being filled, so a screen can show it.
public final class ChatHistoryView: PostboxView {
    /// Where the window is.
    public enum Anchor: Equatable, Sendable {
        /// The newest messages.
        case latest
        /// Around a message of the chat (half the window older than it): scrolling back anchors at the oldest message
        /// shown, forward at the newest. A message not stored yet shows the newest messages until it is.
        case around(Int32)
    }

    /// One line of the conversation.
    public struct Item: Equatable, Sendable {
        public let message: Message
        /// A send the server has not confirmed (its local copy; `message.flags` has `.failed` once refused).
        public let isPending: Bool
    }

    public struct Snapshot: Equatable, Sendable {
        /// Oldest first; pending sends last.
        public let items: [Item]
        /// The server's messages of the window, with the holes next to them.
        public let window: MessageHistoryView.Snapshot

        /// Older messages of the window are being fetched (a hole below what is shown).
        public var loadingOlder: Bool { window.earlierHole != nil }
        /// Newer ones are.
        public var loadingNewer: Bool { window.laterHole != nil }
    }

    public let peer: PeerID
    public let anchor: Anchor
    public let count: Int

    public init(peer: PeerID, anchor: Anchor = .latest, count: Int) {
        self.peer = peer
        self.anchor = anchor
        self.count = max(1, count)
    }

    public var keys: Set<ViewKey> { [.history(peer), .holes(peer)] }

    /// The window over the server's messages, its anchor read from the store.
    func window(_ transaction: Transaction) throws -> MessageHistoryView {
        var index: MessageIndex?
        if case let .around(id) = anchor {
            index = try transaction.message(MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: id))
                .map { MessageIndex(id: $0.id, timestamp: $0.timestamp) }
        }
        return MessageHistoryView(peer: peer, namespace: StoreMapping.cloudMessages, anchor: index, count: count)
    }

    public func load(_ transaction: Transaction) throws -> Snapshot {
        let window = try self.window(transaction).load(transaction)
        var items = window.messages.map { Item(message: $0, isPending: false) }
        if window.laterHole == nil,   // (the newest is read only when the window may reach it)
           try window.messages.last?.id == transaction.latestMessages(peer: peer, namespace: StoreMapping.cloudMessages, limit: 1).first?.id {
            let pending = try transaction.latestMessages(peer: peer, namespace: OutboxEntry.localMessages, limit: count)
            items += pending.reversed().map { Item(message: $0, isPending: true) }
        }
        return Snapshot(items: items, window: window)
    }

    /// The holes the server's messages of the window wait on, as `MessageHistoryView` asks for them.
    public func holeRequests(in snapshot: Snapshot) -> Set<HoleRequest> {
        MessageHistoryView(peer: peer, namespace: StoreMapping.cloudMessages, count: count).holeRequests(in: snapshot.window)
    }
}

extension Account {
    /// A live window of `peer`'s conversation (`ChatHistoryView`): the server's messages around `anchor` with the
    /// pending sends after the newest, holes fetched while it is open.
    public nonisolated func conversation(_ peer: PeerID, anchor: ChatHistoryView.Anchor = .latest,
                                         count: Int = 50) -> AsyncThrowingStream<ViewUpdate<ChatHistoryView.Snapshot>, any Error> {
        postbox.view(ChatHistoryView(peer: peer, anchor: anchor, count: count))
    }
}
