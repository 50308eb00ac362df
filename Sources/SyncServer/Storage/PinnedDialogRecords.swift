/// Each user's pinned dialogs, in their order (`messages.toggleDialogPin`, `messages.reorderPinnedDialogs`): a short
/// list (`DialogPins.maximum`), read and replaced whole.
public protocol PinnedDialogStorageReader {
    /// The owner's pinned dialogs, first first.
    func pinnedDialogs(owner: Int64) throws -> [PeerRef]
}

public protocol PinnedDialogStorageWriter {
    /// Replaces the owner's pinned dialogs with `peers`, in that order.
    func setPinnedDialogs(owner: Int64, _ peers: [PeerRef]) throws
}
