import MTProto
import TL

extension UsersRPC {
    /// `users.getFullUser`: the user with its bio and default settings (no common chats yet).
    enum GetFullUser: RPCMethod {
        typealias Function = API.functions.users.GetFullUser

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let input = call.id
            let user = try await server.storageRead { tx in try PeerResolution.user(input, me: me, in: tx) }
            return .userFull(.init(
                fullUser: .userFull(.init(id: user.id, about: user.about.isEmpty ? nil : user.about.clamped(toUnits: InputLimits.bioLength),
                                          settings: .peerSettings(.init()),
                                          notifySettings: TLRendering.notifySettings(), commonChatsCount: 0)),
                chats: [], users: [server.rendered(user, viewer: me)]))

        }
    }
}
