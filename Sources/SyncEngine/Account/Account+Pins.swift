import Postbox
import TL

/// Pinned messages: a live view of a chat's, pins and unpins (`messages.updatePinnedMessage`, through the operation
/// log), and unpinning all of a chat's at once (`messages.unpinAllMessages`, a direct call: it needs the network).
extension Account {
    /// A live window of `peer`'s pinned messages (`StoreMapping.pinnedTag`).
    public nonisolated func pinnedMessages(_ peer: PeerID, count: Int = 50) -> AsyncThrowingStream<ViewUpdate<MessageHistoryView.Snapshot>, any Error> {
        postbox.view(MessageHistoryView(peer: peer, namespace: StoreMapping.cloudMessages, count: count, tag: StoreMapping.pinnedTag))
    }

    /// `messages.updatePinnedMessage`: pins message `id` of `peer` for both sides (or, `oneSide`, in a private chat for
    /// this account only), or unpins it. Shown at once and sent through the operation log (`AccountChange`); the
    /// "pinned" service message arrives with the server's answer.
    public func pin(_ id: Int32, in peer: PeerID, unpin: Bool = false, oneSide: Bool = false) async throws {
        _ = try await inputPeer(peer)
        try await queue(.pinMessage(MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: id), pinned: !unpin, oneSide: oneSide))
    }

    /// `messages.unpinAllMessages`: every pinned message of `peer` unpinned, for both sides in a private chat (a
    /// channel's, by an admin). The server answers counters only, so the store's pinned messages of the chat are
    /// unpinned here, and the counters go to the sequencer after them; called again while the server says more are left.
    public func unpinAll(in peer: PeerID) async throws {
        let input = try await inputPeer(peer)
        let channel: Int64? = if case let .inputPeerChannel(value) = input { value.channelId } else { nil }
        try await repeatWhileMoreAreLeft(channel: channel, { try await self.network.send(API.functions.messages.UnpinAllMessages(peer: input)) }) {
            transaction in
            let pinned = try transaction.messages(peer: peer, namespace: StoreMapping.cloudMessages, from: StoreMapping.newestIndex(in: peer),
                                                  direction: .older, limit: 1_000, tag: StoreMapping.pinnedTag)
            for message in pinned { _ = try transaction.updateMessage(message.id) { StoreMapping.setPinned(&$0, false) } }
        }
    }
}

/// Pinned chats (`messages.toggleDialogPin`, `messages.reorderPinnedDialogs`), shown first by `ChatListView`.
extension Account {
    /// Pins a chat first in the chat list, or unpins it (the server allows five: `PINNED_DIALOGS_TOO_MUCH`). Shown at
    /// once and sent through the operation log; the account's other devices learn it as `updateDialogPinned`.
    public func pinChat(_ peer: PeerID, pinned: Bool = true) async throws {
        _ = try await inputPeer(peer)
        try await queue(.pinChat(peer, pinned: pinned))
    }

    /// Sets the pinned chats' order; with `force`, pinned chats not in `order` are unpinned. Through the operation log.
    public func reorderPinnedChats(_ order: [PeerID], force: Bool = false) async throws {
        for peer in order { _ = try await inputPeer(peer) }
        try await queue(.pinnedChatOrder(order, force: force))
    }
}
