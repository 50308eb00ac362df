import MTProto
import TL

extension AuthRPC {
    /// `auth.logOut`: the key is unbound; its other sessions, in every process, stop getting pushes and are
    /// disconnected.
    enum LogOut: RPCMethod {
        typealias Function = API.functions.auth.LogOut

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            _ = try context.user()
            // Every session of the key, here and (PostgreSQL) in every other process, stops getting pushes; the
            // others are disconnected, so their clients learn of it at once.
            try await server.bindOrFail(authKeyID: context.authKeyID, to: nil, keeping: context.outlet)
            return .loggedOut(.init())

        }
    }
}
