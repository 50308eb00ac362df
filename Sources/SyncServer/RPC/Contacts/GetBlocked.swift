import MTProto
import TL

extension ContactsRPC {
    /// `contacts.getBlocked`: the caller's blocks, newest first, `limit` (at most 100) after `offset`; a
    /// `contacts.blockedSlice` with the total when the list goes on past this page or began before it.
    enum GetBlocked: RPCMethod {
        typealias Function = API.functions.contacts.GetBlocked

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try refuseStoriesList(call.myStoriesFrom)
            let offset = Int(max(0, call.offset))
            let limit = Int(min(max(call.limit, 0), 100))
            return try await server.storageRead { tx in
                let blocks = try tx.blocks(owner: me, offset: offset, limit: limit)
                let count = try tx.blockCount(owner: me)
                let users = try ContactEditing.rendered(try blocks.compactMap { try tx.user(id: $0.userID) }, viewer: me, server: server, in: tx)
                let peers = blocks.map { API.PeerBlocked.peerBlocked(.init(peerId: .peerUser(.init(userId: $0.userID)), date: $0.date)) }
                guard offset == 0, count <= blocks.count else {
                    return .blockedSlice(.init(count: Int32(clamping: count), blocked: peers, chats: [], users: users))
                }
                return .blocked(.init(blocked: peers, chats: [], users: users))
            }
        }
    }
}
