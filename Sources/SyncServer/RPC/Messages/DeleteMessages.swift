import MTProto
import TL

extension MessagesRPC {
    /// `messages.deleteMessages` in the caller's box, and with `revoke` in every other copy's box too; each box moves
    /// its pts.
    enum DeleteMessages: RPCMethod {
        typealias Function = API.functions.messages.DeleteMessages

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let (ids, revoke, date) = (call.id, call.revoke, server.now)
            let outcome = try await server.storageWrite { tx in try PrivateEdits.delete(by: me, ids: ids, revoke: revoke, date: date, in: tx) }
            for event in outcome.events {
                UpdatePush.single(event.update, to: event.user, date: date, server: server, except: context.outlet)
            }
            return .affectedMessages(.init(pts: outcome.callerPts, ptsCount: outcome.callerPtsCount))

        }
    }
}
