import MTProto
import TL

extension UsersRPC {
    /// `users.getUsers`: the users named (at most 100), as the caller sees them.
    enum GetUsers: RPCMethod {
        typealias Function = API.functions.users.GetUsers

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let inputs = call.id
            return try await server.storageRead { tx in
                // Telegram leaves out the users it cannot resolve instead of failing the whole call.
                let users = inputs.compactMap { input in try? PeerResolution.user(input, me: me, in: tx) }
                return try ContactEditing.rendered(users, viewer: me, server: server, in: tx)
            }

        }
    }
}
