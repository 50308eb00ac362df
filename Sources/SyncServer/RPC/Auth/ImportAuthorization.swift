import Foundation
import MTProto
import TL

extension AuthRPC {
    /// `auth.importAuthorization` on another DC: the exported token binds this key to the user, once.
    enum ImportAuthorization: RPCMethod {
        typealias Function = API.functions.auth.ImportAuthorization

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            guard server.transfers.redeem(token: [UInt8](call.bytes), user: call.id, at: context.dc, now: server.now),
                  let user = try await server.storageRead({ try $0.user(id: call.id) })
            else { throw .badRequest("AUTH_BYTES_INVALID") }
            try await server.bindOrFail(authKeyID: context.authKeyID, to: user.id)
            return .authorization(.init(user: TLRendering.user(user, viewer: user.id)))

        }
    }
}
