import MTProto
import TL

/// `users.getUsers`, `users.getFullUser` and `contacts.resolveUsername` (users and public channels).
enum UsersHandlers {
    static func register(in router: inout RPCRouter, server: ServerContext) {
        router.on(API.functions.users.GetUsers.self) { call, context throws(RPCError) in
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let inputs = call.id
            return try await server.storageRead { tx in
                // Telegram leaves out the users it cannot resolve instead of failing the whole call.
                inputs.compactMap { input in
                    (try? PeerResolution.user(input, me: me, in: tx)).map { TLRendering.user($0, viewer: me) }
                }
            }
        }

        router.on(API.functions.users.GetFullUser.self) { call, context throws(RPCError) in
            let me = try context.user()
            let input = call.id
            let user = try await server.storageRead { tx in try PeerResolution.user(input, me: me, in: tx) }
            return .userFull(.init(
                fullUser: .userFull(.init(id: user.id, settings: .peerSettings(.init()),
                                          notifySettings: TLRendering.notifySettings(), commonChatsCount: 0)),
                chats: [], users: [TLRendering.user(user, viewer: me)]))
        }

        router.on(API.functions.contacts.ResolveUsername.self) { call, context throws(RPCError) in
            let me = try context.user()
            try InputLimits.checkLookup(call.username, error: "USERNAME_INVALID")
            let username = call.username.hasPrefix("@") ? String(call.username.dropFirst()) : call.username
            guard !username.isEmpty else { throw .badRequest("USERNAME_INVALID") }
            return try await server.storageRead { tx in
                if let user = try tx.user(username: username) {
                    return .resolvedPeer(.init(peer: .peerUser(.init(userId: user.id)), chats: [], users: [TLRendering.user(user, viewer: me)]))
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
