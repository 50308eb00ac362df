import MTProto
import TL

extension ContactsRPC {
    /// `contacts.search`: the caller's contacts whose saved name has a word starting with `q`, and users and public
    /// channels whose username starts with it, at most `limit` (≤ 100) of each, ignoring case; contacts are listed in
    /// `my_results`, the others in `results`. `SEARCH_QUERY_EMPTY` for an empty query; a query that cannot begin a
    /// username finds contacts only.
    enum Search: RPCMethod {
        typealias Function = API.functions.contacts.Search
        static let largestLimit = 100

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkLookup(call.q, error: "SEARCH_QUERY_EMPTY")
            var query = call.q.trimmingBlanks()
            if query.hasPrefix("@") { query.removeFirst() }
            guard !query.isEmpty else { throw .badRequest("SEARCH_QUERY_EMPTY") }
            let limit = Int(min(max(call.limit, 0), Int32(largestLimit)))
            let prefix = isUsernamePrefix(query) ? query : nil
            return try await server.storageRead { [query] tx in
                let contacts = try tx.contacts(owner: me, limit: ContactLists.maximum)
                let contactIDs = Set(contacts.map(\.userID))
                var users = try contacts.filter { namesStart(with: query, $0.firstName, $0.lastName) }.prefix(limit)
                    .compactMap { try tx.user(id: $0.userID) }
                var channels: [ChannelRecord] = []
                if let prefix {
                    let known = Set(users.map(\.id))
                    users += try tx.users(usernamePrefix: prefix, limit: limit).filter { !known.contains($0.id) && $0.id != me }
                    channels = try tx.channels(usernamePrefix: prefix, limit: limit)
                }
                return .found(.init(
                    myResults: users.filter { contactIDs.contains($0.id) }.map { .peerUser(.init(userId: $0.id)) },
                    results: users.filter { !contactIDs.contains($0.id) }.map { API.Peer.peerUser(.init(userId: $0.id)) }
                        + channels.map { ChannelRendering.peer($0.id) },
                    chats: try channels.map { channel in
                        ChannelRendering.chat(channel, member: try tx.member(channel: channel.id, user: me),
                                              participants: try tx.memberCount(channel: channel.id))
                    },
                    users: try ContactEditing.rendered(users, viewer: me, server: server, in: tx)))
            }
        }

        /// Whether a name (first and last) has a word that starts with `query`, ignoring case.
        static func namesStart(with query: String, _ names: String...) -> Bool {
            let query = query.lowercased()
            return names.contains { name in
                name.lowercased().split(whereSeparator: { $0.isWhitespace }).contains { $0.hasPrefix(query) } || name.lowercased().hasPrefix(query)
            }
        }

        /// Usernames are ASCII letters, digits and `_`: nothing else can start one.
        static func isUsernamePrefix(_ query: String) -> Bool {
            query.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_")
            }
        }
    }
}
