import Foundation
import MTProto
import TL

extension AuthRPC {
    /// `auth.exportAuthorization` on the home DC: a one-time token that logs the same user in on another DC.
    enum ExportAuthorization: RPCMethod {
        typealias Function = API.functions.auth.ExportAuthorization

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            guard server.configuration.servedDCs.contains(call.dcId), call.dcId != context.dc else { throw .badRequest("DC_ID_INVALID") }
            let token = server.random { generator in (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) } }
            server.transfers.export(user: me, to: call.dcId, token: token, now: server.now)
            return .exportedAuthorization(.init(id: me, bytes: Data(token)))

        }
    }
}
