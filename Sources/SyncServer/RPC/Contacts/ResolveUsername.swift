import MTProto
import TL

extension ContactsRPC {
    /// `contacts.resolveUsername`: the user or public channel with that username, with its access hash.
    enum ResolveUsername: RPCMethod {
        typealias Function = API.functions.contacts.ResolveUsername

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkLookup(call.username, error: "USERNAME_INVALID")
            let username = call.username.hasPrefix("@") ? String(call.username.dropFirst()) : call.username
            guard !username.isEmpty else { throw .badRequest("USERNAME_INVALID") }
            return try await server.storageRead { tx in
                if let user = try tx.user(username: username) {
                    return .resolvedPeer(.init(peer: .peerUser(.init(userId: user.id)), chats: [], users: try ContactEditing.rendered([user], viewer: me, server: server, in: tx)))
                }
                guard let channel = try tx.channel(username: username) else { throw RPCError.badRequest("USERNAME_NOT_OCCUPIED") }
                let member = try tx.member(channel: channel.id, user: me)
                return .resolvedPeer(.init(peer: ChannelRendering.peer(channel.id),
                                           chats: [ChannelRendering.chat(channel, member: member,
                                                                         participants: try tx.memberCount(channel: channel.id))],
                                           users: []))
            }

        }
    }
}
