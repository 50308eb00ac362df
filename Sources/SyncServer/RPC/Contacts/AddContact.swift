import MTProto
import TL

extension ContactsRPC {
    /// `contacts.addContact`: saves a user among the caller's contacts under the given name (`CONTACT_NAME_EMPTY`
    /// without one, names bounded as profiles', `CONTACT_ID_INVALID` for oneself); the phone, when given, is kept
    /// as the one the caller knows the user by. Answers the user with the new flags; every session of the caller is
    /// told (`ContactEditing`), unless the same name and phone were saved already.
    enum AddContact: RPCMethod {
        typealias Function = API.functions.contacts.AddContact

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let firstName = call.firstName.trimmingBlanks(), lastName = call.lastName.trimmingBlanks()
            guard !(firstName.isEmpty && lastName.isEmpty) else { throw .badRequest("CONTACT_NAME_EMPTY") }
            guard InputLimits.fits(firstName, units: InputLimits.nameLength) else { throw .badRequest("FIRSTNAME_INVALID") }
            guard InputLimits.fits(lastName, units: InputLimits.nameLength) else { throw .badRequest("LASTNAME_INVALID") }
            let phone = call.phone.isEmpty ? "" : try InputLimits.phone(call.phone)
            try server.accountStateRate.admit(user: me, now: server.monotonicNow)   // each change is a seq event
            let (input, date) = (call.id, server.now)
            let (changes, answer) = try await server.storageWrite { tx in
                let user = try PeerResolution.user(input, me: me, in: tx)
                var room: Int?
                let changes: [SequencedUpdate]
                switch try ContactEditing.save(user, firstName: firstName, lastName: lastName, phone: phone, for: me, date: date,
                                               room: &room, in: tx) {
                case .full: throw RPCError.badRequest("CONTACTS_TOO_MUCH")
                case .unchanged: changes = []
                case let .changed(change): changes = [change]
                }
                return (changes, ContactEditing.answer(changes, users: try ContactEditing.rendered([user], viewer: me, server: server, in: tx),
                                                       date: date))
            }
            for change in changes { change.push(date: date, server: server) }
            return answer
        }
    }
}
