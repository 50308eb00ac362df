import MTProto
import TL

extension AuthRPC {
    /// `auth.signIn`: checks the code for this key and binds the key to the user; an unknown phone gets
    /// `authorizationSignUpRequired`.
    enum SignIn: RPCMethod {
        typealias Function = API.functions.auth.SignIn

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let phone = try InputLimits.phone(call.phoneNumber)
            try InputLimits.checkLookup(call.phoneCodeHash, error: "PHONE_CODE_EXPIRED")
            try InputLimits.checkLookup(call.phoneCode ?? "", error: "PHONE_CODE_INVALID")
            switch server.logins.check(phone: phone, hash: call.phoneCodeHash, code: call.phoneCode, authKeyID: context.authKeyID,
                                       now: server.now) {
            case .ok: break
            case .invalid: throw .badRequest(call.phoneCode?.isEmpty ?? true ? "PHONE_CODE_EMPTY" : "PHONE_CODE_INVALID")
            case .expired: throw .badRequest("PHONE_CODE_EXPIRED")
            case let .flood(seconds): throw .floodWait(seconds)
            }
            guard let user = try await server.storageRead({ try $0.user(phone: phone) }) else {
                return .authorizationSignUpRequired(.init())   // the hash stays for one auth.signUp
            }
            server.logins.consume(hash: call.phoneCodeHash)
            try await server.bindOrFail(authKeyID: context.authKeyID, to: user.id)
            return .authorization(.init(user: TLRendering.user(user, viewer: user.id)))

        }
    }
}
