import TL

/// How a viewer and a user are linked through their contact lists: what `user.contact` and `user.mutual_contact` say,
/// and whether the viewer sees the user's phone — Telegram's default privacy shows a phone to the user's own
/// contacts, and a viewer who saved the user under a phone knows it anyway.
struct ContactLink: Sendable, Equatable {
    /// The viewer's entry for the user, nil when the user is not among the viewer's contacts.
    var saved: ContactRecord?
    /// Whether the user has the viewer among their contacts.
    var hasViewer: Bool

    static let none = ContactLink(saved: nil, hasViewer: false)

    var isContact: Bool { saved != nil }
    var isMutual: Bool { saved != nil && hasViewer }
    var showsPhone: Bool { hasViewer || !(saved?.phone.isEmpty ?? true) }

    /// The link between `viewer` and each of `users` (none for the viewer themselves), two point reads per user.
    static func read(viewer: Int64, users: [Int64], in tx: any StorageReader) throws -> [Int64: ContactLink] {
        var links: [Int64: ContactLink] = [:]
        for user in Set(users) where user != viewer {
            links[user] = ContactLink(saved: try tx.contact(owner: viewer, user: user),
                                      hasViewer: try tx.contact(owner: user, user: viewer) != nil)
        }
        return links
    }
}

/// The limits and the cache hash of contact lists.
enum ContactLists {
    /// Contacts one user keeps: `contacts.getContacts` answers the whole list at once, so its size is bounded
    /// (about 300 KB of users at most). An import past it leaves the rest in `retry_contacts`; `contacts.addContact`
    /// past it is refused with `CONTACTS_TOO_MUCH` (this server's name; Telegram documents none).
    static let maximum = 5_000
    /// Contacts one `contacts.importContacts` call adds; the rest of a longer list comes back in `retry_contacts`.
    static let importedPerCall = 500

    /// `contacts.getContacts`' hash (core.telegram.org/api/offsets, "Hash generation"): the saved count, then the
    /// sorted ids of the contacts, each folded in with the documented shifts, as unsigned 64-bit arithmetic.
    static func hash(savedCount: Int32, ids: [Int64]) -> Int64 {
        var hash: UInt64 = 0
        for value in [Int64(savedCount)] + ids.sorted() {
            hash ^= hash >> 21
            hash ^= hash << 35
            hash ^= hash >> 4
            hash = hash &+ UInt64(bitPattern: value)
        }
        return Int64(bitPattern: hash)
    }
}
