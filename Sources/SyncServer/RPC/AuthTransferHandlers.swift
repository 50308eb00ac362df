import Foundation
import MTProto
import TL

/// `auth.exportAuthorization` on the home DC and `auth.importAuthorization` on the other: how a logged-in client
/// gets a key on a second DC logged in without a second phone code.
enum AuthTransferHandlers {
    static func register(in router: inout RPCRouter, server: ServerContext) {
        router.on(API.functions.auth.ExportAuthorization.self) { call, context throws(RPCError) in
            let me = try context.user()
            guard server.configuration.servedDCs.contains(call.dcId), call.dcId != context.dc else { throw .badRequest("DC_ID_INVALID") }
            let token = server.random { generator in (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) } }
            server.transfers.export(user: me, to: call.dcId, token: token, now: server.now)
            return .exportedAuthorization(.init(id: me, bytes: Data(token)))
        }

        router.on(API.functions.auth.ImportAuthorization.self) { call, context throws(RPCError) in
            guard server.transfers.redeem(token: [UInt8](call.bytes), user: call.id, at: context.dc, now: server.now),
                  let user = try await server.storageRead({ try $0.user(id: call.id) })
            else { throw .badRequest("AUTH_BYTES_INVALID") }
            try await server.bindOrFail(authKeyID: context.authKeyID, to: user.id)
            return .authorization(.init(user: TLRendering.user(user, viewer: user.id)))
        }
    }
}
