import MTProto
import TL

extension AccountRPC {
    /// `account.updateUsername`: sets the caller's username, or removes it with an empty one (`USERNAME_INVALID`,
    /// `USERNAME_OCCUPIED` when another user or a channel has it in any case, `USERNAME_NOT_MODIFIED` when it is the
    /// caller's already). Told as `updateUserName` like a new name (`Profiles`).
    enum UpdateUsername: RPCMethod {
        typealias Function = API.functions.account.UpdateUsername

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let username = call.username.isEmpty ? nil : try InputLimits.username(call.username)
            try server.profileRate.admit(user: me, now: server.monotonicNow)
            let date = server.now
            let change = try await server.storageWrite { tx in
                if let username, try CheckUsername.isTaken(username, byOtherThan: me, in: tx) { throw RPCError.badRequest("USERNAME_OCCUPIED") }
                return try Profiles.change(me, date: date, unchanged: .badRequest("USERNAME_NOT_MODIFIED"), in: tx) { $0.username = username }
            }
            change.told?.push(date: date, server: server)
            return TLRendering.user(change.user, viewer: me)
        }
    }
}
