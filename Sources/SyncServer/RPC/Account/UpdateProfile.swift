import MTProto
import TL

extension AccountRPC {
    /// `account.updateProfile`: the fields given replace the caller's first name, last name and bio (Telegram's
    /// limits: `FIRSTNAME_INVALID`, `LASTNAME_INVALID`, `ABOUT_TOO_LONG`). A new name reaches the caller's sessions
    /// and everyone with a dialog with the caller as `updateUserName` (`Profiles`). Answers the caller's user.
    enum UpdateProfile: RPCMethod {
        typealias Function = API.functions.account.UpdateProfile

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let firstName = try call.firstName.map { name throws(RPCError) in try InputLimits.firstName(name) }
            let lastName = try call.lastName.map { name throws(RPCError) in try InputLimits.lastName(name) }
            let about = try call.about.map { text throws(RPCError) in try InputLimits.bio(text) }
            try server.profileRate.admit(user: me, now: server.monotonicNow)
            let date = server.now
            let change = try await server.storageWrite { tx in
                try Profiles.change(me, date: date, in: tx) { user in
                    if let firstName { user.firstName = firstName }
                    if let lastName { user.lastName = lastName }
                    if let about { user.about = about }
                }
            }
            change.told?.push(date: date, server: server)
            return TLRendering.user(change.user, viewer: me)
        }
    }
}
