import MTProto
import TL

extension ContactsRPC {
    /// `contacts.getContacts`: the caller's whole contact list (at most `ContactLists.maximum`) with the mutual flag
    /// of each, or `contacts.contactsNotModified` when `hash` is the list's (`ContactLists.hash`).
    enum GetContacts: RPCMethod {
        typealias Function = API.functions.contacts.GetContacts

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let hash = call.hash
            return try await server.storageRead { tx in
                let contacts = try tx.contacts(owner: me, limit: ContactLists.maximum)
                if hash != 0, hash == ContactLists.hash(savedCount: 0, ids: contacts.map(\.userID)) { return .contactsNotModified(.init()) }
                let mutual = Set(try tx.mutualContactIDs(owner: me, limit: ContactLists.maximum))
                var listed: [API.Contact] = []
                var users: [API.User] = []
                for contact in contacts {
                    guard let user = try tx.user(id: contact.userID) else { continue }
                    let link = ContactLink(saved: contact, hasViewer: mutual.contains(contact.userID))
                    listed.append(.contact(.init(userId: contact.userID, mutual: link.isMutual)))
                    users.append(server.rendered(user, viewer: me, link: link))
                }
                return .contacts(.init(contacts: listed, savedCount: 0, users: users))
            }
        }
    }
}
