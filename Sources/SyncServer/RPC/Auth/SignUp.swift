import MTProto
import TL

extension AuthRPC {
    /// `auth.signUp`: a new account for a phone whose code was checked, with Telegram's name limits.
    enum SignUp: RPCMethod {
        typealias Function = API.functions.auth.SignUp

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let phone = try InputLimits.phone(call.phoneNumber)
            let firstName = try InputLimits.firstName(call.firstName)
            let lastName = try InputLimits.lastName(call.lastName)
            let accessHash = server.random { Int64.random(in: Int64.min...Int64.max, using: &$0) }
            let (homeDC, logins, authKeyID, now, hash) = (context.dc, server.logins, context.authKeyID, server.now, call.phoneCodeHash)
            let user = try await server.storageWrite { tx -> UserRecord in
                // signUp carries no code: the signIn that answered sign-up-required checked it for this hash and key.
                guard try logins.consumeVerified(phone: phone, hash: hash, authKeyID: authKeyID, now: now, in: tx) else {
                    throw RPCError.badRequest("PHONE_CODE_EXPIRED")
                }
                if let existing = try tx.user(phone: phone) { return existing }
                let user = UserRecord(id: max(try tx.maxUserID() + 1, AccountSeed.firstSignUpID), accessHash: accessHash,
                                      phone: phone, firstName: firstName, lastName: lastName, homeDC: homeDC)
                try tx.insert(user)
                return user
            }
            try await server.bindOrFail(authKeyID: context.authKeyID, to: user.id)
            return .authorization(.init(user: TLRendering.user(user, viewer: user.id)))

        }
    }
}
