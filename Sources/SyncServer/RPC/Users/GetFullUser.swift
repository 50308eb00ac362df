import MTProto
import TL

extension UsersRPC {
    /// `users.getFullUser`: the user with its bio, contact flags, whether the caller blocked them, the newest message
    /// pinned in the caller's chat with them, and default settings (no common chats yet).
    enum GetFullUser: RPCMethod {
        typealias Function = API.functions.users.GetFullUser

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let input = call.id
            let (user, link, blocked, pinned) = try await server.storageRead { tx in
                let user = try PeerResolution.user(input, me: me, in: tx)
                return (user, try ContactLink.read(viewer: me, users: [user.id], in: tx)[user.id] ?? .none,
                        try tx.block(owner: me, user: user.id) != nil, try Pins.newest(owner: me, peer: .user(user.id), in: tx))
            }
            return .userFull(.init(
                fullUser: .userFull(.init(blocked: blocked, id: user.id, about: user.about.isEmpty ? nil : user.about.clamped(toUnits: InputLimits.bioLength),
                                          settings: .peerSettings(.init()),
                                          notifySettings: TLRendering.notifySettings(), pinnedMsgId: pinned, commonChatsCount: 0)),
                chats: [], users: [server.rendered(user, viewer: me, link: link)]))

        }
    }
}
