import MTProto
import TL

/// Profile changes (`account.updateProfile`, `account.updateUsername`): the user's row is replaced, and a change of
/// name or username is told as `updateUserName` — an update without pts, so each box that learns it takes its next
/// seq (`UserBox.recordSeq`) — to the user's own other sessions and to everyone with a dialog with the user, as
/// Telegram tells the people who see the name. A change of the bio alone is told to nobody (it is read with
/// `users.getFullUser`).
enum Profiles {
    /// At most this many boxes learn of one change (the owners of dialogs with the user, by id): a change's cost stays
    /// bounded however many people a user has written to; the others see the name with their next read of the user.
    static let announcedTo = 10_000

    /// What a committed change tells whom: each box's seq for the one update.
    struct Change: Sendable {
        let user: UserRecord
        let update: API.Update?
        let seqs: [(owner: Int64, seq: Int32)]
    }

    /// Applies `edit` to the user's row; `unchanged` is thrown when it changed nothing.
    static func change(_ userID: Int64, date: Int32, unchanged: RPCError? = nil, in tx: any StorageWriter,
                       _ edit: (inout UserRecord) throws -> Void) throws -> Change {
        guard let before = try tx.user(id: userID) else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
        var after = before
        try edit(&after)
        guard after != before else {
            if let unchanged { throw unchanged }
            return Change(user: before, update: nil, seqs: [])
        }
        try tx.update(after)
        guard (after.firstName, after.lastName, after.username) != (before.firstName, before.lastName, before.username) else {
            return Change(user: after, update: nil, seqs: [])
        }
        let update = API.Update.updateUserName(.init(userId: after.id, firstName: after.firstName, lastName: after.lastName,
                                                     usernames: usernames(of: after)))
        let owners = Set(try tx.dialogOwners(peer: .user(userID), limit: announcedTo)).union([userID]).sorted()
        try tx.lockBoxes(users: owners)
        var seqs: [(owner: Int64, seq: Int32)] = []
        for owner in owners {
            var box = try UserBox(user: owner, tx: tx)
            seqs.append((owner, try box.recordSeq(date: date, update)))
            try box.save()
        }
        return Change(user: after, update: update, seqs: seqs)
    }

    /// The user a seq-log update names (for the `users` of what carries it).
    static func userNamed(by update: API.Update) -> Int64? {
        if case let .updateUserName(value) = update { value.userId } else { nil }
    }

    /// Layer 229 names a user's usernames as a list: the one this server keeps, editable and active.
    static func usernames(of user: UserRecord) -> [API.Username] {
        user.username.map { [.username(.init(editable: true, active: true, username: $0))] } ?? []
    }

    /// Each box's `updates` container with its seq, to every session of the box's owner — the caller's too: a session
    /// that never saw a seq would take the next one for a gap.
    static func push(_ change: Change, date: Int32, server: ServerContext) {
        guard let update = change.update else { return }
        for (owner, seq) in change.seqs {
            let outlets = server.sessions.outlets(of: owner, except: nil)
            guard !outlets.isEmpty else { continue }
            let body = API.Updates.updates(.init(updates: [update], users: [TLRendering.user(change.user, viewer: owner)], chats: [],
                                                 date: date, seq: seq))
            UpdatePush.send(body.serialized(), to: outlets)
        }
    }
}
