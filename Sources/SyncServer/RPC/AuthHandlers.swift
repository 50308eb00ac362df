import MTProto
import TL

/// `auth.*`: login by phone code, sign-up for unknown phones, logout. A key logged in is bound to its user in
/// storage, so the login survives a server restart.
enum AuthHandlers {
    static func register(in router: inout RPCRouter, server: ServerContext) {
        router.on(API.functions.auth.SendCode.self) { call, context throws(RPCError) in
            let phone = try InputLimits.phone(call.phoneNumber)
            // An account logs in on its home DC; a new phone signs up on the DC it asked.
            if let home = try await server.storageRead({ try $0.user(phone: phone)?.homeDC }), home != context.dc {
                throw RPCError(code: 303, message: "PHONE_MIGRATE_\(home)")
            }
            let (hash, code) = try server.random { (random: inout RandomSource) throws(RPCError) in
                try server.logins.issue(phone: phone, authKeyID: context.authKeyID, now: server.now, random: &random)
            }
            if server.configuration.loginCode == nil {
                server.logger.notice("login code", metadata: ["phone": "\(phone)", "code": "\(code)"])
            }
            return .sentCode(.init(type: .sentCodeTypeApp(.init(length: Int32(code.count))), phoneCodeHash: hash))
        }

        router.on(API.functions.auth.SignIn.self) { call, context throws(RPCError) in
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

        router.on(API.functions.auth.SignUp.self) { call, context throws(RPCError) in
            let phone = try InputLimits.phone(call.phoneNumber)
            let firstName = try InputLimits.firstName(call.firstName)
            let lastName = try InputLimits.lastName(call.lastName)
            // signUp carries no code: the signIn that answered sign-up-required checked it for this hash and key.
            guard server.logins.consumeVerified(phone: phone, hash: call.phoneCodeHash, authKeyID: context.authKeyID,
                                                now: server.now) else {
                throw .badRequest("PHONE_CODE_EXPIRED")
            }
            let accessHash = server.random { Int64.random(in: Int64.min...Int64.max, using: &$0) }
            let homeDC = context.dc
            let user = try await server.storageWrite { tx -> UserRecord in
                if let existing = try tx.user(phone: phone) { return existing }
                let user = UserRecord(id: max(try tx.maxUserID() + 1, AccountSeed.firstSignUpID), accessHash: accessHash,
                                      phone: phone, firstName: firstName, lastName: lastName, homeDC: homeDC)
                try tx.insert(user)
                return user
            }
            try await server.bindOrFail(authKeyID: context.authKeyID, to: user.id)
            return .authorization(.init(user: TLRendering.user(user, viewer: user.id)))
        }

        router.on(API.functions.auth.LogOut.self) { _, context throws(RPCError) in
            _ = try context.user()
            // Every session of the key, here and (PostgreSQL) in every other process, stops getting pushes; the
            // others are disconnected, so their clients learn of it at once.
            try await server.bindOrFail(authKeyID: context.authKeyID, to: nil, keeping: context.outlet)
            return .loggedOut(.init())
        }
    }
}
