import MTProto
import TL

extension AuthRPC {
    /// `auth.sendCode`: a code bound to this key and phone (rate-limited); a phone homed elsewhere gets
    /// `PHONE_MIGRATE_X`.
    enum SendCode: RPCMethod {
        typealias Function = API.functions.auth.SendCode

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let phone = try InputLimits.phone(call.phoneNumber)
            // An account logs in on its home DC; a new phone signs up on the DC it asked.
            if let home = try await server.storageRead({ try $0.user(phone: phone)?.homeDC }), home != context.dc {
                throw RPCError(code: 303, message: "PHONE_MIGRATE_\(home)")
            }
            let drawn = server.random { LoginCodes.draw(using: &$0) }
            let (logins, authKeyID, now) = (server.logins, context.authKeyID, server.now)
            let code = try await server.storageWrite { tx in
                try logins.issue(phone: phone, authKeyID: authKeyID, now: now, drawn: drawn, in: tx)
            }
            let hash = drawn.hash
            if server.configuration.loginCode == nil {
                server.logger.notice("login code", metadata: ["phone": "\(phone)", "code": "\(code)"])
            }
            return .sentCode(.init(type: .sentCodeTypeApp(.init(length: Int32(code.count))), phoneCodeHash: hash))

        }
    }
}
