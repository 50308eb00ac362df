/// The development accounts of `synccore server --seed dev`: +15550001 Alice @alice, +15550002 Bob @bob and
/// +15550003 Carol @carol (ids 1001–1003), the broadcast channel @news owned by Alice (id 2001) and the supergroup
/// @lounge with Alice, Bob and Carol (id 2002). Seeding is idempotent: what exists is left as it is.
enum AccountSeed {
    static let users: [(id: Int64, phone: String, name: String, username: String)] = [
        (1001, "15550001", "Alice", "alice"),
        (1002, "15550002", "Bob", "bob"),
        (1003, "15550003", "Carol", "carol"),
    ]

    static let channels: [(id: Int64, username: String, title: String, broadcast: Bool, members: [Int64])] = [
        (2001, "news", "News", true, []),
        (2002, "lounge", "Lounge", false, [1002, 1003]),
    ]

    /// Users created by `auth.signUp` are numbered from here, clear of the seeded ids.
    static let firstSignUpID: Int64 = 10_000

    /// Home DCs go round the served ones: with DCs 1 and 2, Alice and Carol live on 1 and Bob on 2.
    static func seed(_ storage: any ServerStorage, dcs: [Int32], date: Int32) async throws {
        try await storage.write { tx in
            for (index, entry) in users.enumerated() where try tx.user(id: entry.id) == nil {
                // Fixed access hashes keep dev sessions valid across re-seeding of a fresh data directory.
                try tx.insert(UserRecord(id: entry.id, accessHash: 0x5EED_0000 + Int64(index), phone: entry.phone,
                                         firstName: entry.name, username: entry.username, homeDC: dcs[index % dcs.count]))
            }
            for (index, entry) in channels.enumerated() where try tx.channel(id: entry.id) == nil {
                let channel = ChannelRecord(id: entry.id, accessHash: 0x5EED_1000 + Int64(index), title: entry.title,
                                            username: entry.username, broadcast: entry.broadcast, creatorID: users[0].id, date: date)
                _ = try ChannelMembership.create(channel, members: entry.members, in: tx)
            }
        }
    }
}
