/// The development accounts of `synccore server --seed dev`: +15550001 Alice @alice, +15550002 Bob @bob and
/// +15550003 Carol @carol (ids 1001–1003). Seeding is idempotent: existing accounts are left as they are.
/// The issue's @news channel and @lounge supergroup come with channel support (not implemented yet).
enum AccountSeed {
    static let users: [(id: Int64, phone: String, name: String, username: String)] = [
        (1001, "15550001", "Alice", "alice"),
        (1002, "15550002", "Bob", "bob"),
        (1003, "15550003", "Carol", "carol"),
    ]

    /// Users created by `auth.signUp` are numbered from here, clear of the seeded ids.
    static let firstSignUpID: Int64 = 10_000

    static func seed(_ storage: any ServerStorage, homeDC: Int32) async throws {
        try await storage.write { tx in
            for (index, entry) in users.enumerated() where try tx.user(id: entry.id) == nil {
                // Fixed access hashes keep dev sessions valid across re-seeding of a fresh data directory.
                try tx.insert(UserRecord(id: entry.id, accessHash: 0x5EED_0000 + Int64(index), phone: entry.phone,
                                         firstName: entry.name, username: entry.username, homeDC: homeDC))
            }
        }
    }
}
