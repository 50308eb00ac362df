import MTProto
import TL

extension ContactsRPC {
    /// `contacts.deleteContacts`: removes users (at most 100) from the caller's contacts; those not on it are passed
    /// over. Answers the users with their new flags; every session of the caller is told of each removal.
    enum DeleteContacts: RPCMethod {
        typealias Function = API.functions.contacts.DeleteContacts

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            try server.accountStateRate.admit(user: me, now: server.monotonicNow)   // each change is a seq event
            let (inputs, date) = (call.id, server.now)
            let (changes, answer) = try await server.storageWrite { tx in
                let users = inputs.compactMap { input in try? PeerResolution.user(input, me: me, in: tx) }.filter { $0.id != me }
                let changes = try users.compactMap { try ContactEditing.remove($0, for: me, date: date, in: tx) }
                return (changes, ContactEditing.answer(changes, users: try ContactEditing.rendered(users, viewer: me, server: server, in: tx), date: date))
            }
            for change in changes { change.push(date: date, server: server) }
            return answer
        }
    }
}
