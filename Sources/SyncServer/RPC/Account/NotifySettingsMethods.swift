import MTProto
import TL

extension AccountRPC {
    /// `account.updateNotifySettings`: the caller's settings for a chat or a kind of chat (`NotifySettings`).
    enum UpdateNotifySettings: RPCMethod {
        typealias Function = API.functions.account.UpdateNotifySettings

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, settings, date) = (call.peer, NotifySettings.settings(from: call.settings), server.now)
            try server.accountStateRate.admit(user: me, now: server.monotonicNow)
            let told = try await server.storageWrite { tx in
                try NotifySettings.update(try NotifySettings.scope(input, me: me, in: tx), to: settings, me: me, date: date, in: tx)
            }
            told?.push(date: date, server: server)
            return true
        }
    }

    /// `account.getNotifySettings`: the stored settings, with nothing set when none are.
    enum GetNotifySettings: RPCMethod {
        typealias Function = API.functions.account.GetNotifySettings

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let input = call.peer
            return try await server.storageRead { tx in
                try NotifySettings.stored(owner: me, scope: try NotifySettings.scope(input, me: me, in: tx), in: tx)
            }
        }
    }
}
