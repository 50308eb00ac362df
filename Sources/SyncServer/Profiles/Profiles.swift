import MTProto
import TL

/// Profile changes (`account.updateProfile`, `account.updateUsername`): the user's row is replaced, and a change of
/// name or username is told as `updateUserName` — an update without pts, so each box that learns it takes its next
/// seq (`SequencedUpdate`) — to the user's own sessions, everyone with a dialog with the user and everyone who has the
/// user among their contacts, as Telegram tells the people who see the name; a new profile photo the same way, as
/// `updateUser` with the user. A change of the bio alone is told to nobody (it is read with `users.getFullUser`).
enum Profiles {
    /// At most this many dialog owners and this many contact owners learn of one change (each by id): a change's cost
    /// stays bounded however many people a user has written to; the others see the name with their next read of the user.
    static let announcedTo = 10_000

    /// What a committed change tells whom: nil when nobody is told (a bio, or nothing changed).
    struct Change: Sendable {
        let user: UserRecord
        let told: SequencedUpdate?
    }

    /// Applies `edit` to the user's row; `unchanged` is thrown when it changed nothing.
    static func change(_ userID: Int64, date: Int32, unchanged: RPCError? = nil, in tx: any StorageWriter,
                       _ edit: (inout UserRecord) throws -> Void) throws -> Change {
        guard let before = try tx.user(id: userID) else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
        var after = before
        try edit(&after)
        guard after != before else {
            if let unchanged { throw unchanged }
            return Change(user: before, told: nil)
        }
        try tx.update(after)
        let update: API.Update
        if (after.firstName, after.lastName, after.username) != (before.firstName, before.lastName, before.username) {
            update = .updateUserName(.init(userId: after.id, firstName: after.firstName, lastName: after.lastName,
                                           usernames: usernames(of: after)))
        } else if after.photo != before.photo {
            update = .updateUser(.init(userId: after.id))   // the new photo is on the user the update carries
        } else {
            return Change(user: after, told: nil)
        }
        let owners = try audience(of: userID, in: tx)
        return Change(user: after, told: try SequencedUpdate.record(update, naming: after, to: owners, date: date, in: tx))
    }

    /// Who is told of a user's profile: the user, the owners of dialogs with the user and those who have the user
    /// among their contacts (each at most `announcedTo`).
    static func audience(of userID: Int64, in tx: any StorageReader) throws -> [Int64] {
        let owners = Set(try tx.dialogOwners(peer: .user(userID), limit: announcedTo))
            .union(try tx.contactOwners(of: userID, limit: announcedTo))
        return owners.union([userID]).sorted()
    }

    /// Layer 229 names a user's usernames as a list: the one this server keeps, editable and active.
    static func usernames(of user: UserRecord) -> [API.Username] {
        user.username.map { [.username(.init(editable: true, active: true, username: $0))] } ?? []
    }
}
