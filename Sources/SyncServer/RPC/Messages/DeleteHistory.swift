import MTProto
import TL

extension MessagesRPC {
    /// `messages.deleteHistory` of a private chat or basic group: the caller's messages with ids up to `max_id` (0: all)
    /// and dates within `min_date`…`max_date`, newest first, `perCall` at a time — the answer's `offset` is 1 while
    /// more are left, and the client calls again. With `revoke` the other side's copies go too, as
    /// `messages.deleteMessages` revokes (`PrivateEdits.delete`). The dialog stays, emptied, whether or not `just_clear`
    /// is set (this server does not remove dialogs). Channels have `channels.deleteHistory`: `PEER_ID_INVALID` here.
    enum DeleteHistory: RPCMethod {
        typealias Function = API.functions.messages.DeleteHistory

        static let perCall = 100

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, revoke, date) = (call.peer, call.revoke, server.now)
            let below = call.maxId > 0 && call.maxId < Int32.max ? call.maxId + 1 : Int32.max
            let dates = (call.minDate ?? 0)...((call.maxDate ?? 0) > 0 ? max(call.maxDate ?? 0, call.minDate ?? 0) : Int32.max)
            let (outcome, more) = try await server.storageWrite { tx -> (PrivateEdits.Outcome, Bool) in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                if case .channel = peer { throw RPCError.badRequest("PEER_ID_INVALID") }
                let (ids, more) = try Self.batch(of: me, peer: peer, below: below, dates: dates, in: tx)
                return (try PrivateEdits.delete(by: me, ids: ids, revoke: revoke, date: date, in: tx), more)
            }
            for event in outcome.events {
                UpdatePush.single(event.update, to: event.user, date: date, server: server, except: context.outlet)
            }
            return .affectedHistory(.init(pts: outcome.callerPts, ptsCount: outcome.callerPtsCount, offset: more ? 1 : 0))
        }

        /// The next ids to delete, newest first, and whether more are left. Reading stops after `scanned` rows (a date
        /// range far down a long chat takes several calls, each bounded).
        private static func batch(of me: Int64, peer: PeerRef, below: Int32, dates: ClosedRange<Int32>,
                                  in tx: any StorageReader) throws -> (ids: [Int32], more: Bool) {
            let (page, scanned) = (500, 10_000)
            var (ids, position, read) = ([Int32](), below, 0)
            while read < scanned {
                let rows = try tx.messages(owner: me, peer: peer, in: IDRange(above: 0, below: position, newestFirst: true, limit: page))
                for row in rows where dates.contains(row.date) {
                    if ids.count == perCall { return (ids, true) }
                    ids.append(row.id)
                }
                read += rows.count
                guard rows.count == page, let last = rows.last else { return (ids, false) }
                position = last.id
            }
            return (ids, true)
        }
    }
}
