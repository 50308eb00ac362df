import MTProto
import TL

extension AccountRPC {
    /// `account.checkUsername`: `USERNAME_INVALID` for one Telegram would refuse; otherwise whether the caller may
    /// take it (false when another user or a channel has it, in any case).
    enum CheckUsername: RPCMethod {
        typealias Function = API.functions.account.CheckUsername

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let username = try InputLimits.username(call.username)
            let taken = try await server.storageRead { tx in try isTaken(username, byOtherThan: me, in: tx) }
            return !taken
        }

        /// Users and channels share one space of usernames.
        static func isTaken(_ username: String, byOtherThan me: Int64, in tx: any StorageReader) throws -> Bool {
            if let user = try tx.user(username: username), user.id != me { return true }
            return try tx.channel(username: username) != nil
        }
    }
}
