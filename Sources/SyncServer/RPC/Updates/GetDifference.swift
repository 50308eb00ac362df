import MTProto
import TL

extension UpdatesRPC {
    /// `updates.getDifference`: the caller's logged events since `pts`, sliced by count and bytes, copied as stored.
    enum GetDifference: PreEncodedRPCMethod {
        typealias Function = API.functions.updates.GetDifference

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError)
            -> TLPreEncoded<Function.Result> {
            let me = try context.user()
            let (from, date) = (max(call.pts, 0), call.date)
            let (now, page, tooLong) = (server.now, server.configuration.differencePageSize, server.configuration.tooLongThreshold)
            let answer = try await server.storageRead { tx in
                try Difference.compute(for: me, fromPts: from, date: date, now: now, pageSize: page, tooLong: tooLong, in: tx)
            }
            ServerMetrics.difference(answer.kind)
            return answer.encoded

        }
    }
}
