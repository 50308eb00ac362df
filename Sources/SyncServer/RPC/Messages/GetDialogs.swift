import MTProto
import TL

extension MessagesRPC {
    /// `messages.getDialogs`: a page of the caller's dialogs, newest top message first, at most 100; pinned dialogs first
    /// on the first page unless `exclude_pinned` (`DialogList`).
    enum GetDialogs: RPCMethod {
        typealias Function = API.functions.messages.GetDialogs

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (limit, excludePinned) = (Int(max(1, min(call.limit, 100))), call.excludePinned)
            let before: (date: Int32, topMessage: Int32)? = call.offsetDate > 0 ? (call.offsetDate, call.offsetId > 0 ? call.offsetId : 0) : nil
            return try await server.storageRead { tx in try DialogList.page(for: me, before: before, limit: limit, excludePinned: excludePinned, in: tx) }

        }
    }
}
