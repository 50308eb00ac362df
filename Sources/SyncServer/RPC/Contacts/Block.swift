import MTProto
import TL

extension ContactsRPC {
    /// `contacts.block`: the user's private messages no longer reach the caller (`Blocking`); `true` also when the
    /// user was blocked already.
    enum Block: RPCMethod {
        typealias Function = API.functions.contacts.Block

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            try await answerSet(true, call.id, myStoriesFrom: call.myStoriesFrom, context, server: server)
        }

        /// `contacts.block` and `contacts.unblock` differ only in the flag.
        static func answerSet(_ blocked: Bool, _ input: API.InputPeer, myStoriesFrom: Bool, _ context: RPCContext,
                              server: ServerContext) async throws(RPCError) -> Bool {
            let me = try context.user()
            try refuseStoriesList(myStoriesFrom)
            try server.accountStateRate.admit(user: me, now: server.monotonicNow)
            let date = server.now
            let told = try await server.storageWrite { tx in
                try Blocking.set(blocked, target: try Blocking.target(input, me: me, in: tx), by: me, date: date, in: tx)
            }
            told?.push(date: date, server: server)
            return true
        }
    }

    /// `contacts.unblock`: the user's messages reach the caller again (those sent meanwhile do not come back).
    enum Unblock: RPCMethod {
        typealias Function = API.functions.contacts.Unblock

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            try await Block.answerSet(false, call.id, myStoriesFrom: call.myStoriesFrom, context, server: server)
        }
    }
}
