import MTProto
import TL

/// Saving and removing contacts, and the users of the answers with their contact flags.
enum ContactEditing {
    /// Saves `user` among `me`'s contacts (replacing the name and phone saved before); `CONTACTS_TOO_MUCH` when the list
    /// is full and the user is not on it yet.
    static func save(_ user: UserRecord, firstName: String, lastName: String, phone: String, for me: Int64, date: Int32,
                     in tx: any StorageWriter) throws {
        guard user.id != me else { throw RPCError.badRequest("CONTACT_ID_INVALID") }
        if try tx.contact(owner: me, user: user.id) == nil, try tx.contactCount(owner: me) >= ContactLists.maximum {
            throw RPCError.badRequest("CONTACTS_TOO_MUCH")
        }
        try tx.upsert(ContactRecord(owner: me, userID: user.id, firstName: firstName, lastName: lastName, phone: phone, date: date))
    }

    /// `users` as `me` sees them, with their contact flags read.
    static func rendered(_ users: [UserRecord], viewer me: Int64, server: ServerContext, in tx: any StorageReader) throws -> [API.User] {
        let links = try ContactLink.read(viewer: me, users: users.map(\.id), in: tx)
        return users.map { server.rendered($0, viewer: me, link: links[$0.id] ?? .none) }
    }

    /// What `contacts.addContact` and `contacts.deleteContacts` answer: the users whose flags changed, in an `updates`
    /// without seq (it carries no update to order).
    static func answer(_ users: [API.User], date: Int32) -> API.Updates {
        .updates(.init(updates: [], users: users, chats: [], date: date, seq: 0))
    }
}
