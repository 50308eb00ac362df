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
            let (logins, authKeyID, now, hash, code) = (server.logins, context.authKeyID, server.now, call.phoneCodeHash, call.phoneCode)
            let check = try await server.storageWrite { tx in
                try logins.check(phone: phone, hash: hash, code: code, authKeyID: authKeyID, now: now, in: tx)
            }
            switch check {
            case .ok: break
            case .invalid: throw .badRequest(call.phoneCode?.isEmpty ?? true ? "PHONE_CODE_EMPTY" : "PHONE_CODE_INVALID")
            case .expired: throw .badRequest("PHONE_CODE_EXPIRED")
            case let .flood(seconds): throw .floodWait(seconds)
            }
            guard let user = try await server.storageRead({ try $0.user(phone: phone) }) else {
                return .authorizationSignUpRequired(.init())   // the hash stays for one auth.signUp
            }
            try await server.storageWrite { tx in try logins.consume(hash: hash, in: tx) }
            try await server.bindOrFail(authKeyID: context.authKeyID, to: user.id)
            return .authorization(.init(user: TLRendering.user(user, viewer: user.id)))

        }
    }
}
