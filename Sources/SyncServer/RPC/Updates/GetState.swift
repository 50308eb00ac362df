import MTProto
import TL

extension UpdatesRPC {
    /// `updates.getState`: the caller's pts, qts, seq, date and unread count.
    enum GetState: RPCMethod {
        typealias Function = API.functions.updates.GetState

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let now = server.now
            return try await server.storageRead { tx in
                let state = try tx.state(user: me)
                return .state(.init(pts: state.pts, qts: state.qts, date: max(state.date, now), seq: state.seq,
                                    unreadCount: Int32(clamping: try tx.unreadTotal(owner: me))))
            }

        }
    }
}
