import MTProto
import TL

extension MessagesRPC {
    /// `messages.getMessages`: messages of the caller's box by id (at most 100).
    enum GetMessages: RPCMethod {
        typealias Function = API.functions.messages.GetMessages

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let ids = HistoryResults.messageIDs(call.id)
            return try await server.storageRead { tx in
                let messages = try ids.compactMap { try tx.message(owner: me, id: $0) }
                return try HistoryResults.messagesResult(messages, total: messages.count, me: me, in: tx)
            }

        }
    }
}
