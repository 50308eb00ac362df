import MTProto
import TL

/// An update without pts (a user's new name, a block) as the boxes that learn it log it: each box takes its next seq
/// (`UserBox.recordSeq`), and after the commit every session of each box's owner gets it in an `updates` container
/// with that seq — the caller's session too: a session that never saw a seq would take the next one for a gap
/// (core.telegram.org/api/updates, "seq").
struct SequencedUpdate: Sendable {
    let update: API.Update
    /// The user the update names, rendered for each owner in the container (none for a dialog pin of a chat).
    let user: UserRecord?
    let seqs: [(owner: Int64, seq: Int32)]
    /// How each owner and the named user are linked (`ViewerLinks`; `user.contact` is what tells a contact change).
    let links: ViewerLinks

    /// Logs `update` in the box of each of `owners` (locked in ascending order first).
    static func record(_ update: API.Update, naming user: UserRecord?, to owners: [Int64], date: Int32,
                       in tx: any StorageWriter) throws -> SequencedUpdate {
        let owners = Set(owners).sorted()
        try tx.lockBoxes(users: owners)
        var seqs: [(owner: Int64, seq: Int32)] = []
        for owner in owners {
            var box = try UserBox(user: owner, tx: tx)
            seqs.append((owner, try box.recordSeq(date: date, update)))
            try box.save()
        }
        let links = try user.map { try ViewerLinks.read(viewers: owners, users: [$0.id], in: tx) } ?? .none
        return SequencedUpdate(update: update, user: user, seqs: seqs, links: links)
    }

    /// After the commit: each owner's sessions here (other processes push from the commit's announcement).
    func push(date: Int32, server: ServerContext) {
        for (owner, seq) in seqs {
            let outlets = server.sessions.outlets(of: owner, except: nil)
            guard !outlets.isEmpty else { continue }
            let body = API.Updates.updates(.init(updates: [update],
                                                 users: user.map { links.rendered([$0], viewer: owner) } ?? [],
                                                 chats: [], date: date, seq: seq))
            UpdatePush.send(body.serialized(), to: outlets)
        }
    }

    /// The user a seq-log update names (for the `users` of what carries it).
    static func userNamed(by update: API.Update) -> Int64? {
        switch update {
        case let .updateUserName(value): value.userId
        case let .updatePeerBlocked(value): if case let .peerUser(peer) = value.peerId { peer.userId } else { nil }
        case let .updateDialogPinned(value):
            if case let .dialogPeer(dialog) = value.peer, case let .peerUser(peer) = dialog.peer { peer.userId } else { nil }
        case let .updateNotifySettings(value):
            if case let .notifyPeer(notify) = value.peer, case let .peerUser(peer) = notify.peer { peer.userId } else { nil }
        case let .updateDraftMessage(value): if case let .peerUser(peer) = value.peer { peer.userId } else { nil }
        case let .updatePeerSettings(value): if case let .peerUser(peer) = value.peer { peer.userId } else { nil }
        default: nil
        }
    }

    /// The users to send with a logged update, as `viewer` sees them.
    static func users(for update: API.Update, viewer: Int64, in tx: any StorageReader) throws -> [API.User] {
        guard let id = userNamed(by: update), let user = try tx.user(id: id) else { return [] }
        return try ViewerLinks.rendered([user], viewer: viewer, in: tx)
    }
}
