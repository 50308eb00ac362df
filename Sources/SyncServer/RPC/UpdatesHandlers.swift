import MTProto
import TL

/// `updates.getState` and `updates.getDifference` over the user's common box, `updates.getChannelDifference` over a
/// channel's log (core.telegram.org/api/updates).
/// qts is kept and reported but nothing produces secondary-box events yet; seq stays 0 (pushes carry pts).
enum UpdatesHandlers {
    static func register(in router: inout RPCRouter, server: ServerContext) {
        router.on(API.functions.updates.GetState.self) { _, context throws(RPCError) in
            let me = try context.user()
            let now = server.now
            return try await server.storageRead { tx in
                let state = try tx.state(user: me)
                return .state(.init(pts: state.pts, qts: state.qts, date: max(state.date, now), seq: state.seq,
                                    unreadCount: Int32(clamping: try tx.unreadTotal(owner: me))))
            }
        }

        router.on(API.functions.updates.GetDifference.self, preEncoded: { call, context throws(RPCError) in
            let me = try context.user()
            let (from, date) = (max(call.pts, 0), call.date)
            let (now, page, tooLong) = (server.now, server.configuration.differencePageSize, server.configuration.tooLongThreshold)
            let answer = try await server.storageRead { tx in
                try Difference.compute(for: me, fromPts: from, date: date, now: now, pageSize: page, tooLong: tooLong, in: tx)
            }
            ServerMetrics.difference(answer.kind)
            return answer.encoded
        })

        router.on(API.functions.updates.GetChannelDifference.self) { call, context throws(RPCError) in
            let me = try context.user()
            let (input, pts, limit, tooLong) = (call.channel, call.pts, call.limit, server.configuration.channelTooLongThreshold)
            let filter = try MessageFilter(call.filter)
            let difference = try await server.storageRead { tx in
                let (channel, member) = try ChannelAccess.member(input, user: me, in: tx)
                let isBot = try tx.user(id: me)?.isBot ?? false
                return try ChannelDifference.compute(for: me, isBot: isBot, channel: channel, member: member, fromPts: pts, limit: limit,
                                                     filter: filter, tooLong: tooLong, in: tx)
            }
            ServerMetrics.difference(difference.constructorName)
            return difference
        }
    }
}
