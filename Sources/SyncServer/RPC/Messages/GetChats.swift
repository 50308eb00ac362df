import MTProto
import TL

extension MessagesRPC {
    /// `messages.getChats`: the basic groups named, for a member.
    enum GetChats: RPCMethod {
        typealias Function = API.functions.messages.GetChats

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let ids = call.id
            return try await server.storageRead { tx in
                // Groups the caller is not in are left out, as if they did not exist.
                let chats = try ids.compactMap { id -> API.Chat? in
                    guard let chat = try tx.chat(id: id) else { return nil }
                    let members = try tx.chatMembers(chat: id)
                    guard members.contains(where: { $0.userID == me }) else { return nil }
                    return ChatRendering.chat(chat, memberCount: members.count, viewer: me)
                }
                return .chats(.init(chats: chats))
            }

        }
    }
}
