import MTProto
import TL

extension MessagesRPC {
    /// `messages.getMessages`: messages of the caller's box by id or as the messages others reply to (at most 100;
    /// `HistoryResults.messageIDs`). The box spans every private chat and group, so no chat's pin is named here.
    enum GetMessages: RPCMethod {
        typealias Function = API.functions.messages.GetMessages

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let inputs = call.id
            return try await server.storageRead { tx in
                let ids = try HistoryResults.messageIDs(inputs, replyTarget: { try tx.message(owner: me, id: $0)?.replyTo }, pinned: { nil })
                let messages = try ids.compactMap { try tx.message(owner: me, id: $0) }
                return try HistoryResults.messagesResult(messages, total: messages.count, me: me, in: tx)
            }

        }
    }
}
