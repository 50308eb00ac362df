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

/// The contact links of several viewers to the users an answer or a push names. Telegram renders every user as the
/// viewer sees them — `contact`, `mutual_contact`, the saved name, the phone — and clients keep what the last object
/// said (TDLib reads a contact's state from any non-`min` user), so a message from a contact rendered without the link
/// would take them off the viewer's contacts. Read in the transaction that writes or reads what is sent; a push after
/// the commit renders from it.
struct ViewerLinks: Sendable {
    private var links: [Int64: [Int64: ContactLink]] = [:]

    static let none = ViewerLinks()

    /// The links of each of `viewers` to each of `users`: two point reads per pair (none for a viewer themselves).
    static func read(viewers: some Sequence<Int64>, users: [Int64], in tx: any StorageReader) throws -> ViewerLinks {
        var read = ViewerLinks()
        for viewer in Set(viewers) where read.links[viewer] == nil {
            read.links[viewer] = try ContactLink.read(viewer: viewer, users: users, in: tx)
        }
        return read
    }

    /// The links a push needs: those of the viewers with a session on this process (nobody else is pushed to from
    /// here; other processes render their own sessions' pushes from the commit's announcement), and `always` (the
    /// caller, answered with the same users). Up to `allViewersUpTo` viewers (a private chat, a small group) are read
    /// whether online or not, so a session that connects between the commit and the push still gets the right flags.
    static func forPush(viewers: [Int64], always: [Int64] = [], users: [Int64], server: ServerContext,
                        in tx: any StorageReader) throws -> ViewerLinks {
        let pushed = viewers.count <= allViewersUpTo ? viewers : viewers.filter { server.sessions.hasSessions($0) }
        return try read(viewers: pushed + always, users: users, in: tx)
    }

    static let allViewersUpTo = 32

    /// For a basic group's message: the members it is pushed to with its sender (`UpdatePush.needsSender`) and the
    /// caller, who is answered with `users`.
    static func forChat(_ delivery: ChatDelivery, users: [UserRecord], caller: Int64, server: ServerContext,
                        in tx: any StorageReader) throws -> ViewerLinks {
        let viewers = delivery.copies.filter { UpdatePush.needsSender($0.message) }.map(\.message.owner)
        return try forPush(viewers: viewers, always: [caller], users: users.map(\.id), server: server, in: tx)
    }

    /// Adds the links of `other`'s viewers (those it read take its links).
    mutating func add(_ other: ViewerLinks) {
        links.merge(other.links) { _, new in new }
    }

    func link(viewer: Int64, user: Int64) -> ContactLink {
        links[viewer]?[user] ?? .none
    }

    /// `users` as `viewer` sees them, their links read here (the status "recently", as history and pushes carry it).
    static func rendered(_ users: [UserRecord], viewer: Int64, in tx: any StorageReader) throws -> [API.User] {
        try read(viewers: [viewer], users: users.map(\.id), in: tx).rendered(users, viewer: viewer)
    }

    /// `users` as `viewer` sees them (the status "recently", as pushes carry it).
    func rendered(_ users: [UserRecord], viewer: Int64) -> [API.User] {
        users.map { TLRendering.user($0, viewer: viewer, link: link(viewer: viewer, user: $0.id)) }
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
