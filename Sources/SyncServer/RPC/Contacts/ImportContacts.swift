import MTProto
import TL

extension ContactsRPC {
    /// `contacts.importContacts`: each phone that belongs to a user (not the caller) saves that user among the
    /// caller's contacts under the given name; the answer pairs each with its `client_id`. Phones of nobody are
    /// passed over (this server keeps no address book to tell of later sign-ups). Past `ContactLists.importedPerCall`
    /// entries, or once the list is full, the rest are named in `retry_contacts`, as Telegram names what it could not
    /// import yet. Names are cut to the profile limits (an address book's names are not the caller's to fix). Every
    /// session of the caller is told of each contact added or renamed (`ContactEditing`; saved again unchanged, nothing).
    enum ImportContacts: RPCMethod {
        typealias Function = API.functions.contacts.ImportContacts

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try server.accountStateRate.admit(user: me, now: server.monotonicNow)   // each change is a seq event
            let entries = call.contacts.map { contact -> API.InputContact.InputPhoneContact in
                switch contact { case let .inputPhoneContact(value): value }
            }
            let (taken, later) = (Array(entries.prefix(ContactLists.importedPerCall)), entries.dropFirst(ContactLists.importedPerCall).map(\.clientId))
            let date = server.now
            let (changes, answer) = try await server.storageWrite { tx in
                var changes: [SequencedUpdate] = []
                var imported: [API.ImportedContact] = []
                var users: [UserRecord] = []
                var retry = later
                var room: Int?
                for entry in taken {
                    guard let phone = try? InputLimits.phone(entry.phone), let user = try tx.user(phone: phone), user.id != me else { continue }
                    switch try ContactEditing.save(user, firstName: entry.firstName.trimmingBlanks().clamped(toUnits: InputLimits.nameLength),
                                                   lastName: entry.lastName.trimmingBlanks().clamped(toUnits: InputLimits.nameLength),
                                                   phone: phone, for: me, date: date, room: &room, in: tx) {
                    case .full: retry.append(entry.clientId); continue
                    case .unchanged: break
                    case let .changed(change): changes.append(change)
                    }
                    imported.append(.importedContact(.init(userId: user.id, clientId: entry.clientId)))
                    if !users.contains(where: { $0.id == user.id }) { users.append(user) }
                }
                return (changes, API.contacts.ImportedContacts.importedContacts(.init(
                    imported: imported, popularInvites: [], retryContacts: retry,
                    users: try ContactEditing.rendered(users, viewer: me, server: server, in: tx))))
            }
            for change in changes { change.push(date: date, server: server) }
            return answer
        }
    }
}
