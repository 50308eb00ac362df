import Postbox
import TL

/// Pinned messages: a live view of a chat's, pins and unpins (`messages.updatePinnedMessage`), and unpinning all of a
/// chat's at once (`messages.unpinAllMessages`).
extension Account {
    /// A live window of `peer`'s pinned messages (`StoreMapping.pinnedTag`).
    public nonisolated func pinnedMessages(_ peer: PeerID, count: Int = 50) -> AsyncThrowingStream<ViewUpdate<MessageHistoryView.Snapshot>, any Error> {
        postbox.view(MessageHistoryView(peer: peer, namespace: StoreMapping.cloudMessages, count: count, tag: StoreMapping.pinnedTag))
    }

    /// `messages.updatePinnedMessage`: pins message `id` of `peer` for both sides (or, `oneSide`, in a private chat for
    /// this account only), or unpins it. The answer's updates go through the sequencer: the store shows the pin (and
    /// the "pinned" service message) once they are applied — in a process that follows another's syncing, once that
    /// one has learnt them.
    public func pin(_ id: Int32, in peer: PeerID, unpin: Bool = false, oneSide: Bool = false) async throws {
        let updates = try await network.send(API.functions.messages.UpdatePinnedMessage(
            unpin: unpin, pmOneside: oneSide, peer: try await inputPeer(peer), id: id))
        if isMaster { try await syncing().sent(updates) }
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
    /// Pins a chat first in the chat list, or unpins it (the server allows five: `PINNED_DIALOGS_TOO_MUCH`). Stored at
    /// once; the account's other devices learn it as `updateDialogPinned`.
    public func pinChat(_ peer: PeerID, pinned: Bool = true) async throws {
        _ = try await network.send(API.functions.messages.ToggleDialogPin(
            pinned: pinned, peer: .inputDialogPeer(.init(peer: try await inputPeer(peer)))))
        try await storePins(.toggle(peer, pinned: pinned))
    }

    /// Sets the pinned chats' order; with `force`, pinned chats not in `order` are unpinned.
    public func reorderPinnedChats(_ order: [PeerID], force: Bool = false) async throws {
        var inputs: [API.InputDialogPeer] = []
        for peer in order { inputs.append(.inputDialogPeer(.init(peer: try await inputPeer(peer)))) }
        _ = try await network.send(API.functions.messages.ReorderPinnedDialogs(force: force, folderId: 0, order: inputs))
        let current = try await postbox.read { try $0.pinnedChats() }
        try await storePins(.order(force ? order : order + current.filter { !order.contains($0) }))
    }

    private func storePins(_ change: DialogPinChange) async throws {
        _ = try await postbox.transaction { transaction in
            try transaction.setPinnedChats(DialogPinChange.apply([change], to: try transaction.pinnedChats()))
        }
    }
}
