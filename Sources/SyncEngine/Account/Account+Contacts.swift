import Postbox
import TL

/// The account's contact list and blocks (`contacts.*`), kept in the store as typed rows that `ContactsView` and
/// `BlockedPeersView` show. The server tells other devices of a block (`updatePeerBlocked`, applied by the update
/// handlers); a change of the contact list reaches another device with its next `contacts()`.
extension Account {
    /// Reads the whole contact list from the server and stores it (with the users it names), with the contact changes
    /// still waiting in the operation log written over it.
    @discardableResult
    public func contacts() async throws -> [ContactEntry] {
        guard case let .contacts(list) = try await network.send(API.functions.contacts.GetContacts(hash: 0)) else {
            return try await postbox.read { try $0.contacts() }
        }
        let users = Self.byID(list.users)
        let entries = list.contacts.compactMap { contact -> ContactEntry? in
            switch contact {
            case let .contact(value):
                let user = users[value.userId]
                return ContactEntry(peer: StoreMapping.user(value.userId), firstName: user?.firstName ?? "", lastName: user?.lastName ?? "",
                                    isMutual: value.mutual)
            }
        }
        let peers = StoreMapping.peers(users: list.users, chats: [])
        let (me, date) = (user?.id ?? 0, environment.unixTime)
        _ = try await postbox.transaction { transaction in
            try StoreMapping.store(peers, in: transaction)
            try transaction.replaceContacts(entries)
            try transaction.reapplyWaitingChanges(selfID: me, date: date) { $0.isContactChange }
        }
        return try await postbox.read { try $0.contacts() }
    }

    /// Saves a known user among the contacts under the given name (the server refuses an empty one with
    /// `CONTACT_NAME_EMPTY`); returns the entry stored at once (the change goes through the operation log).
    @discardableResult
    public func addContact(_ peer: PeerID, firstName: String, lastName: String = "") async throws -> ContactEntry {
        _ = try await inputUser(peer)
        try await queue(.addContact(peer, firstName: firstName, lastName: lastName))
        return try await postbox.read { try $0.contacts() }.first { $0.peer == peer }
            ?? ContactEntry(peer: peer, firstName: firstName, lastName: lastName)
    }

    /// Imports contacts by phone; returns the users found (phones of nobody are passed over).
    @discardableResult
    public func importContacts(_ contacts: [(phone: String, firstName: String, lastName: String)]) async throws -> [PeerID] {
        let inputs = contacts.enumerated().map { index, contact in
            API.InputContact.inputPhoneContact(.init(clientId: Int64(index), phone: contact.phone, firstName: contact.firstName,
                                                     lastName: contact.lastName))
        }
        guard case let .importedContacts(imported) = try await network.send(API.functions.contacts.ImportContacts(contacts: inputs)) else {
            return []
        }
        let users = Self.byID(imported.users)
        var entries: [ContactEntry] = []
        for case let .importedContact(value) in imported.imported where contacts.indices.contains(Int(clamping: value.clientId)) {
            let contact = contacts[Int(value.clientId)]
            entries.append(ContactEntry(peer: StoreMapping.user(value.userId), firstName: contact.firstName, lastName: contact.lastName,
                                        isMutual: users[value.userId]?.mutualContact ?? false))
        }
        let peers = StoreMapping.peers(users: imported.users, chats: [])
        _ = try await postbox.transaction { [entries] transaction in
            try StoreMapping.store(peers, in: transaction)
            for entry in entries { try transaction.setContact(entry) }
        }
        return entries.map(\.peer)
    }

    /// Removes users from the contacts (at once here; through the operation log for the server).
    public func deleteContacts(_ peers: [PeerID]) async throws {
        for peer in peers { _ = try await inputUser(peer) }
        try await queue(.deleteContacts(peers))
    }

    /// Blocks a user: their private messages no longer reach the account. Shown at once and sent through the
    /// operation log; the account's other devices learn it as `updatePeerBlocked`.
    public func block(_ peer: PeerID) async throws { try await setBlocked(peer, true) }

    /// Unblocks a user.
    public func unblock(_ peer: PeerID) async throws { try await setBlocked(peer, false) }

    /// Reads every blocked user from the server (100 per call) and stores the set, with the blocks and unblocks still
    /// waiting in the operation log written over it; returns the set as stored.
    @discardableResult
    public func blockedPeers() async throws -> Set<PeerID> {
        var peers = Set<PeerID>()
        var users: [API.User] = []
        var offset: Int32 = 0
        while true {
            let page: [API.PeerBlocked]
            switch try await network.send(API.functions.contacts.GetBlocked(offset: offset, limit: 100)) {
            case let .blocked(value): (page, users) = (value.blocked, users + value.users)
            case let .blockedSlice(value): (page, users) = (value.blocked, users + value.users)
            }
            for case let .peerBlocked(value) in page { peers.insert(StoreMapping.peerID(value.peerId)) }
            guard page.count == 100, offset < Int32.max - 100 else { break }
            offset += 100
        }
        let stored = StoreMapping.peers(users: users, chats: [])
        let (me, date) = (user?.id ?? 0, environment.unixTime)
        return try await postbox.transaction { [peers] transaction in
            try StoreMapping.store(stored, in: transaction)
            try transaction.replaceBlockedPeers(peers)
            try transaction.reapplyWaitingChanges(selfID: me, date: date) { $0.isBlock }
            return try transaction.blockedPeers()
        }.result
    }

    private func setBlocked(_ peer: PeerID, _ blocked: Bool) async throws {
        _ = try await inputPeer(peer)
        try await queue(.blocked(peer, blocked))
    }

    /// An answer's users by id.
    private static func byID(_ users: [API.User]) -> [Int64: API.User.User] {
        Dictionary(users.compactMap { user in if case let .user(value) = user { (value.id, value) } else { nil } },
                   uniquingKeysWith: { first, _ in first })
    }

    /// A stored user as `InputUser`.
    func inputUser(_ peer: PeerID) async throws -> API.InputUser {
        switch try await inputPeer(peer) {
        case .inputPeerSelf: return .inputUserSelf(.init())
        case let .inputPeerUser(user): return .inputUser(.init(userId: user.userId, accessHash: user.accessHash))
        default: throw AccountError.unsupportedPeer("\(peer) is not a user")
        }
    }
}
