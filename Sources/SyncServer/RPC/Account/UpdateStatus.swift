import MTProto
import TL

extension AccountRPC {
    /// `account.updateStatus`: online for `PresenceRegistry.onlinePeriod` seconds, or offline from now, stored for every
    /// process (`ServerContext.setStatus`). A change between the two is told to everyone with a dialog with the caller
    /// (`PresenceChanges`), at most as often as
    /// `ServerContext.statusRate` allows (a client toggling its status in a loop costs a lookup of its dialogs each
    /// time; past the rate the status is kept and told to nobody); the caller's last session closing makes it offline
    /// too (`ServerContext.sessionClosed`).
    enum UpdateStatus: RPCMethod {
        typealias Function = API.functions.account.UpdateStatus

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let now = server.now
            let status: PresenceRegistry.Status = call.offline ? .offline(wasOnline: now) : .online(expires: now + PresenceRegistry.onlinePeriod)
            await server.setStatus(status, of: me)
            return true
        }
    }
}
