import MTProto
import TL

/// Pinned dialogs (`messages.toggleDialogPin`, `messages.reorderPinnedDialogs`): a list of at most `maximum` of the
/// caller's dialogs, newest pin first, shown first by `messages.getDialogs`. A change is told to the caller's sessions
/// as `updateDialogPinned` / `updatePinnedDialogs` — updates without pts, so with the caller's next seq.
enum DialogPins {
    /// Telegram's `pinned_dialogs_count_max` for an account without Premium; past it, `PINNED_DIALOGS_TOO_MUCH`.
    static let maximum = 5

    /// A dialog of the caller named as Telegram names dialogs; `PEER_ID_INVALID` for a folder, a community, or a peer
    /// the caller has no dialog with.
    static func peer(_ input: API.InputDialogPeer, me: Int64, in tx: any StorageReader) throws -> PeerRef {
        guard case let .inputDialogPeer(value) = input else { throw RPCError.badRequest("PEER_ID_INVALID") }
        let peer = try PeerResolution.peer(value.peer, me: me, in: tx)
        guard try DialogList.exists(peer, me: me, in: tx) else { throw RPCError.badRequest("PEER_ID_INVALID") }
        return peer
    }

    /// Pins `peer` first, or unpins it; nil when it was so already.
    static func toggle(_ peer: PeerRef, pinned: Bool, me: Int64, date: Int32, in tx: any StorageWriter) throws -> SequencedUpdate? {
        var pins = try tx.pinnedDialogs(owner: me)
        guard pins.contains(peer) != pinned else { return nil }
        if pinned {
            guard pins.count < maximum else { throw RPCError.badRequest("PINNED_DIALOGS_TOO_MUCH") }
            pins.insert(peer, at: 0)
        } else {
            pins.removeAll { $0 == peer }
        }
        try tx.setPinnedDialogs(owner: me, pins)
        let update = API.Update.updateDialogPinned(.init(pinned: pinned, peer: dialogPeer(peer)))
        return try SequencedUpdate.record(update, naming: try named(peer, in: tx), to: [me], date: date, in: tx)
    }

    /// The pinned dialogs in `order`, followed (unless `force`) by those pinned before and not named; nil when that
    /// is the order already.
    static func reorder(_ order: [PeerRef], force: Bool, me: Int64, date: Int32, in tx: any StorageWriter) throws -> SequencedUpdate? {
        let old = try tx.pinnedDialogs(owner: me)
        var new: [PeerRef] = []
        for peer in order where !new.contains(peer) { new.append(peer) }
        if !force { new += old.filter { !new.contains($0) } }
        guard new.count <= maximum else { throw RPCError.badRequest("PINNED_DIALOGS_TOO_MUCH") }
        guard new != old else { return nil }
        try tx.setPinnedDialogs(owner: me, new)
        let update = API.Update.updatePinnedDialogs(.init(order: new.map(dialogPeer)))
        return try SequencedUpdate.record(update, naming: nil, to: [me], date: date, in: tx)
    }

    static func dialogPeer(_ peer: PeerRef) -> API.DialogPeer {
        .dialogPeer(.init(peer: TLRendering.peer(peer)))
    }

    private static func named(_ peer: PeerRef, in tx: any StorageReader) throws -> UserRecord? {
        if case let .user(id) = peer { try tx.user(id: id) } else { nil }
    }
}
