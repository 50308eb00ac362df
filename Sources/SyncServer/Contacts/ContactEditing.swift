import MTProto
import TL

/// Saving and removing contacts, and the users of the answers with their contact flags.
enum ContactEditing {
    /// What saving a contact did.
    enum Saved {
        /// The user is not on the list and the list has no room (`room`).
        case full
        /// The same name and phone were saved already: nothing is written or told.
        case unchanged
        /// Added or renamed; the change is told to `me`'s sessions (`changed`).
        case changed(SequencedUpdate)
    }

    /// Saves `user` among `me`'s contacts, replacing the name and phone saved before. `room`: what is left of `me`'s
    /// list, counted at the first user not on it yet (nil until then; a call that saves several passes the same one,
    /// so the list is counted once) and shrinking by one for each.
    static func save(_ user: UserRecord, firstName: String, lastName: String, phone: String, for me: Int64, date: Int32,
                     room: inout Int?, in tx: any StorageWriter) throws -> Saved {
        guard user.id != me else { throw RPCError.badRequest("CONTACT_ID_INVALID") }
        let saved = try tx.contact(owner: me, user: user.id)
        if let saved, saved.firstName == firstName, saved.lastName == lastName, saved.phone == phone { return .unchanged }
        if saved == nil {
            let left = try room ?? ContactLists.maximum - (try tx.contactCount(owner: me))
            guard left > 0 else { room = left; return .full }
            room = left - 1
        }
        try tx.upsert(ContactRecord(owner: me, userID: user.id, firstName: firstName, lastName: lastName, phone: phone, date: date))
        return .changed(try changed(user, isContact: true, for: me, date: date, in: tx))
    }

    /// Removes `user` from `me`'s contacts; nil when they were not on it (nothing changes, nobody is told).
    static func remove(_ user: UserRecord, for me: Int64, date: Int32, in tx: any StorageWriter) throws -> SequencedUpdate? {
        guard user.id != me, try tx.contact(owner: me, user: user.id) != nil else { return nil }
        try tx.deleteContact(owner: me, user: user.id)
        return try changed(user, isContact: false, for: me, date: date, in: tx)
    }

    /// A contact added, renamed or removed reaches every session of `me` as `updatePeerSettings` with `me`'s next seq
    /// and the user rendered with the new link (`user.contact`, the saved name): the add-contact bar is offered for
    /// a user who is not a contact. What Telegram sends `me`'s other devices, which otherwise would learn of the
    /// change only by reading the whole list again.
    private static func changed(_ user: UserRecord, isContact: Bool, for me: Int64, date: Int32,
                                in tx: any StorageWriter) throws -> SequencedUpdate {
        let update = API.Update.updatePeerSettings(.init(peer: .peerUser(.init(userId: user.id)),
                                                         settings: .peerSettings(.init(addContact: !isContact))))
        return try SequencedUpdate.record(update, naming: user, to: [me], date: date, in: tx)
    }

    /// `users` as `me` sees them, with their contact flags read.
    static func rendered(_ users: [UserRecord], viewer me: Int64, server: ServerContext, in tx: any StorageReader) throws -> [API.User] {
        let links = try ContactLink.read(viewer: me, users: users.map(\.id), in: tx)
        return users.map { server.rendered($0, viewer: me, link: links[$0.id] ?? .none) }
    }

    /// What `contacts.addContact` and `contacts.deleteContacts` answer: the changes and the users whose flags changed,
    /// in an `updates` without seq (the caller's session gets them with their seqs as every other session does).
    static func answer(_ changes: [SequencedUpdate], users: [API.User], date: Int32) -> API.Updates {
        .updates(.init(updates: changes.map(\.update), users: users, chats: [], date: date, seq: 0))
    }
}
