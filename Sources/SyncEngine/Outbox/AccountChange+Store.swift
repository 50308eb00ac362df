import Postbox
import TL

/// An account change's local effect: what the store shows at once, and how a refusal puts the old state back.
extension AccountChange {
    /// Writes the change into the store; returns what it replaced.
    func apply(to transaction: Transaction, selfID: Int64, date: Int32) throws -> StoredBefore {
        switch self {
        case let .pinMessage(id, pinned, _):
            let old = try transaction.message(id).map { $0.tags.contains(StoreMapping.pinnedTag) }
            _ = try transaction.updateMessage(id) { StoreMapping.setPinned(&$0, pinned) }
            return .pinned(id, old)
        case let .pinChat(peer, pinned):
            let old = try transaction.pinnedChats()
            try transaction.setPinnedChats(DialogPinChange.apply([.toggle(peer, pinned: pinned)], to: old))
            return .pinnedChats(old)
        case let .pinnedChatOrder(order, force):
            let old = try transaction.pinnedChats()
            try transaction.setPinnedChats(force ? order : order + old.filter { !order.contains($0) })
            return .pinnedChats(old)
        case let .draft(peer, text, replyTo):
            let old = try transaction.draft(peer)
            try transaction.setDraft(peer, text.isEmpty && replyTo == nil ? nil : Draft(text: text, replyTo: replyTo, date: date))
            return .draft(peer, old)
        case let .notificationSettings(peer, settings):
            let old = try transaction.notificationSettings(peer)
            try transaction.setNotificationSettings(peer, settings)
            return .notificationSettings(peer, old)
        case let .addContact(peer, firstName, lastName):
            let old = try Self.contacts([peer], in: transaction)
            try transaction.setContact(ContactEntry(peer: peer, firstName: firstName, lastName: lastName,
                                                    isMutual: old[peer]?.isMutual ?? false))
            return .contacts(old)
        case let .deleteContacts(peers):
            let old = try Self.contacts(peers, in: transaction)
            for peer in peers { try transaction.removeContact(peer) }
            return .contacts(old)
        case let .blocked(peer, blocked):
            let old = try transaction.blockedPeers().contains(peer)
            try transaction.setBlocked(peer, blocked)
            return .blocked(peer, old)
        case let .profile(firstName, lastName, about):
            let names = try Self.renameSelf(selfID, in: transaction) { user in
                if let firstName { user.firstName = firstName }
                if let lastName { user.lastName = lastName }
            }
            guard let about else { return names }
            let me = StoreMapping.user(selfID), old = try transaction.about(me)
            try transaction.setAbout(me, about)
            return .several([names, .about(me, old)])
        case let .username(name):
            return try Self.renameSelf(selfID, in: transaction) { $0.username = name.flatMap { $0.isEmpty ? nil : $0 } }
        case let .edit(id, text):
            guard let old = try transaction.message(id) else { return .nothing }
            _ = try transaction.updateMessage(id) { StoreMapping.setText(&$0, text) }
            return .text(id, old.text)
        case let .delete(ids, _):
            let old = try ids.compactMap { try transaction.message($0) }
            try transaction.removeMessages(ids)
            return .messages(old)
        }
    }

    private static func contacts(_ peers: [PeerID], in transaction: Transaction) throws -> [PeerID: ContactEntry] {
        let wanted = Set(peers)
        return Dictionary(try transaction.contacts().filter { wanted.contains($0.peer) }.map { ($0.peer, $0) },
                          uniquingKeysWith: { first, _ in first })
    }

    private static func renameSelf(_ selfID: Int64, in transaction: Transaction,
                                   _ rename: (inout UserPeer) -> Void) throws -> StoredBefore {
        guard case var .user(user)? = try transaction.peer(StoreMapping.user(selfID)) else { return .nothing }
        let before = StoredBefore.selfNames(user.id, firstName: user.firstName, lastName: user.lastName, username: user.username)
        rename(&user)
        try transaction.updatePeer(.user(user))
        return before
    }
}

extension StoredBefore {
    /// Puts back what the store held before a refused change.
    func restore(in transaction: Transaction) throws {
        switch self {
        case let .pinned(id, pinned):
            if let pinned { _ = try transaction.updateMessage(id) { StoreMapping.setPinned(&$0, pinned) } }
        case let .pinnedChats(order): try transaction.setPinnedChats(order)
        case let .draft(peer, draft): try transaction.setDraft(peer, draft)
        case let .notificationSettings(peer, settings): try transaction.setNotificationSettings(peer, settings)
        case let .contacts(entries):
            for entry in entries.values.sorted(by: { $0.peer < $1.peer }) { try transaction.setContact(entry) }
        case let .blocked(peer, blocked): try transaction.setBlocked(peer, blocked)
        case let .selfNames(peer, firstName, lastName, username):
            guard case var .user(user)? = try transaction.peer(peer) else { return }
            (user.firstName, user.lastName, user.username) = (firstName, lastName, username)
            try transaction.updatePeer(.user(user))
        case let .text(id, text): _ = try transaction.updateMessage(id) { StoreMapping.setText(&$0, text) }
        case let .messages(messages): try transaction.addMessages(messages, countsUnread: false)
        case let .about(peer, about): try transaction.setAbout(peer, about)
        case let .several(befores): for before in befores.reversed() { try before.restore(in: transaction) }
        case .nothing: break
        }
    }

    /// A refused contact addition also removes the entry it wrote (`restore` only puts back entries that existed).
    func restore(_ change: AccountChange, in transaction: Transaction) throws {
        if case let .addContact(peer, _, _) = change, case let .contacts(old) = self, old[peer] == nil {
            try transaction.removeContact(peer)
        }
        try restore(in: transaction)
    }
}

extension Transaction {
    /// Writes again the local effect of every logged change that `touches` selects: after a list read from the server
    /// replaced the stored one (contacts, blocks), what the account changed and the server has not confirmed yet stays
    /// shown (the server's list does not have it yet).
    func reapplyWaitingChanges(selfID: Int64, date: Int32, where touches: (AccountChange) -> Bool) throws {
        for log in try operations(tag: AccountChangeEntry.tag) {
            guard let entry = AccountChangeEntry(log.contents), touches(entry.change) else { continue }
            _ = try entry.change.apply(to: self, selfID: selfID, date: date)
        }
    }
}

extension AccountChange {
    /// Whether the change is to the contact list.
    var isContactChange: Bool {
        switch self {
        case .addContact, .deleteContacts: true
        default: false
        }
    }

    /// Whether the change blocks or unblocks someone.
    var isBlock: Bool {
        if case .blocked = self { true } else { false }
    }
}

