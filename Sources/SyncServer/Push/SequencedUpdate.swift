import MTProto
import TL

/// An update without pts (a user's new name, a block) as the boxes that learn it log it: each box takes its next seq
/// (`UserBox.recordSeq`), and after the commit every session of each box's owner gets it in an `updates` container
/// with that seq — the caller's session too: a session that never saw a seq would take the next one for a gap
/// (core.telegram.org/api/updates, "seq").
struct SequencedUpdate: Sendable {
    let update: API.Update
    /// The users the update names (`NamedPeers`), the one given to `record` first as it is after the change the update
    /// tells; rendered for each owner in the container.
    let users: [UserRecord]
    /// The groups and channels it names, as each owner sees them.
    let chats: [Int64: [API.Chat]]
    let seqs: [(owner: Int64, seq: Int32)]
    /// How each owner and the named users are linked (`ViewerLinks`; `user.contact` is what tells a contact change).
    let links: ViewerLinks

    /// Logs `update` in the box of each of `owners` (locked in ascending order first). `user`: the named user as the
    /// change leaves them (read again otherwise).
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
        let named = NamedPeers.of(update)
        let users = (user.map { [$0] } ?? []) + (try PeerRendering.users(among: named.filter { $0 != user.map { .user($0.id) } }, in: tx))
        let groups = named.filter { if case .user = $0 { false } else { true } }
        var chats: [Int64: [API.Chat]] = [:]
        if !groups.isEmpty {
            for owner in owners { chats[owner] = try PeerRendering.chats(among: groups, viewer: owner, in: tx) }
        }
        let links = users.isEmpty ? .none : try ViewerLinks.read(viewers: owners, users: users.map(\.id), in: tx)
        return SequencedUpdate(update: update, users: users, chats: chats, seqs: seqs, links: links)
    }

    /// After the commit: each owner's sessions here (other processes push from the commit's announcement).
    func push(date: Int32, server: ServerContext) {
        for (owner, seq) in seqs {
            let outlets = server.sessions.outlets(of: owner, except: nil)
            guard !outlets.isEmpty else { continue }
            let body = API.Updates.updates(.init(updates: [update], users: links.rendered(users, viewer: owner),
                                                 chats: chats[owner] ?? [], date: date, seq: seq))
            UpdatePush.send(body.serialized(), to: outlets)
        }
    }

    /// The users and chats to send with a logged update, as `viewer` sees them.
    static func peers(for update: API.Update, viewer: Int64, in tx: any StorageReader) throws -> (users: [API.User], chats: [API.Chat]) {
        let named = NamedPeers.of(update)
        return (try ViewerLinks.rendered(try PeerRendering.users(among: named, in: tx), viewer: viewer, in: tx),
                try PeerRendering.chats(among: named, viewer: viewer, in: tx))
    }
}
