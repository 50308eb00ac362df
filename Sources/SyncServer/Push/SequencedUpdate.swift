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
    /// How each owner and the named user are linked, for an update about a contact (`user.contact` is what tells it).
    let links: [Int64: ContactLink]

    /// Logs `update` in the box of each of `owners` (locked in ascending order first).
    static func record(_ update: API.Update, naming user: UserRecord?, to owners: [Int64], date: Int32,
                       in tx: any StorageWriter) throws -> SequencedUpdate {
        let owners = Set(owners).sorted()
        try tx.lockBoxes(users: owners)
        var seqs: [(owner: Int64, seq: Int32)] = []
        var links: [Int64: ContactLink] = [:]
        for owner in owners {
            var box = try UserBox(user: owner, tx: tx)
            seqs.append((owner, try box.recordSeq(date: date, update)))
            try box.save()
            if let user, rendersContactLink(update) { links[owner] = try ContactLink.read(viewer: owner, users: [user.id], in: tx)[user.id] }
        }
        return SequencedUpdate(update: update, user: user, seqs: seqs, links: links)
    }

    /// After the commit: each owner's sessions here (other processes push from the commit's announcement).
    func push(date: Int32, server: ServerContext) {
        for (owner, seq) in seqs {
            let outlets = server.sessions.outlets(of: owner, except: nil)
            guard !outlets.isEmpty else { continue }
            let body = API.Updates.updates(.init(updates: [update],
                                                 users: user.map { [TLRendering.user($0, viewer: owner, link: links[owner] ?? .none)] } ?? [],
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

    /// Whether the user an update names is rendered with the viewer's contact link: a contact added or removed
    /// (`updatePeerSettings`) is told by the user's `contact` flag and saved name, as Telegram's clients read it.
    static func rendersContactLink(_ update: API.Update) -> Bool {
        if case .updatePeerSettings = update { true } else { false }
    }

    /// The users to send with a logged update, as `viewer` sees them.
    static func users(for update: API.Update, viewer: Int64, in tx: any StorageReader) throws -> [API.User] {
        guard let id = userNamed(by: update), let user = try tx.user(id: id) else { return [] }
        let link = rendersContactLink(update) ? try ContactLink.read(viewer: viewer, users: [id], in: tx)[id] ?? .none : .none
        return [TLRendering.user(user, viewer: viewer, link: link)]
    }
}
