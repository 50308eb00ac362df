import MTProto
import TL

extension ContactsRPC {
    /// `contacts.deleteContacts`: removes users (at most 100) from the caller's contacts; those not on it are passed
    /// over. Answers the users with their new flags.
    enum DeleteContacts: RPCMethod {
        typealias Function = API.functions.contacts.DeleteContacts

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let (inputs, date) = (call.id, server.now)
            return try await server.storageWrite { tx in
                let users = inputs.compactMap { input in try? PeerResolution.user(input, me: me, in: tx) }.filter { $0.id != me }
                for user in users { try tx.deleteContact(owner: me, user: user.id) }
                return ContactEditing.answer(try ContactEditing.rendered(users, viewer: me, server: server, in: tx), date: date)
            }
        }
    }
}
