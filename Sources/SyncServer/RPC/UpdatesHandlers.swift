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

        router.on(API.functions.updates.GetDifference.self) { call, context throws(RPCError) in
            let me = try context.user()
            let (from, date) = (max(call.pts, 0), call.date)
            let (now, page, tooLong) = (server.now, server.configuration.differencePageSize, server.configuration.tooLongThreshold)
            let difference = try await server.storageRead { tx in
                try Difference.compute(for: me, fromPts: from, date: date, now: now, pageSize: page, tooLong: tooLong, in: tx)
            }
            ServerMetrics.difference(difference.constructorName)
            return difference
        }

        router.on(API.functions.updates.GetChannelDifference.self) { call, context throws(RPCError) in
            let me = try context.user()
            let (input, pts, limit, tooLong) = (call.channel, call.pts, call.limit, server.configuration.channelTooLongThreshold)
            let difference = try await server.storageRead { tx in
                let (channel, member) = try ChannelAccess.member(input, user: me, in: tx)
                let isBot = try tx.user(id: me)?.isBot ?? false
                return try ChannelDifference.compute(for: me, isBot: isBot, channel: channel, member: member, fromPts: pts, limit: limit,
                                                     tooLong: tooLong, in: tx)
            }
            ServerMetrics.difference(difference.constructorName)
            return difference
        }
    }
}

/// The answer to `updates.getDifference(pts)`: empty when the client is current, too-long past the threshold,
/// otherwise the logged events after `pts` — new messages apart, every other update in `other_updates` — as one
/// `difference` or, when more remain than a page, a `differenceSlice` whose intermediate state the client
/// continues from. Channels with events since the client's date are named by `updateChannelTooLong` in
/// `other_updates` (their events are in the channel's log, for `getChannelDifference`).
enum Difference {
    static func compute(for user: Int64, fromPts: Int32, date: Int32, now: Int32, pageSize: Int, tooLong: Int,
                        in tx: any StorageReader) throws -> API.updates.Difference {
        let state = try tx.state(user: user)
        guard Int(state.pts) - Int(fromPts) <= tooLong else { return .differenceTooLong(.init(pts: state.pts)) }
        let channels = try ChannelDifference.channelsWithNews(of: user, since: date, in: tx)
        guard fromPts < state.pts || !channels.updates.isEmpty else {
            return .differenceEmpty(.init(date: max(state.date, now), seq: state.seq))
        }
        let events = fromPts < state.pts ? try tx.events(user: user, afterPts: fromPts, limit: pageSize) : []
        var newMessages: [API.Message] = []
        var otherUpdates: [API.Update] = channels.updates
        var userIDs: Set<Int64> = [user]
        for event in events {
            // A row that no longer decodes is skipped (and the client still advances past it) rather than
            // failing every later difference.
            guard let update = try? API.Update.deserialize(event.update) else { continue }
            if case let .updateNewMessage(value) = update {
                newMessages.append(value.message)
                collectUsers(of: value.message, into: &userIDs)
            } else {
                otherUpdates.append(update)
            }
        }
        let users = try userIDs.sorted().compactMap { try tx.user(id: $0) }.map { TLRendering.user($0, viewer: user) }
        let unread = Int32(clamping: try tx.unreadTotal(owner: user))
        if let last = events.last, last.pts < state.pts {
            let intermediate = API.updates.State.state(.init(pts: last.pts, qts: state.qts, date: last.date, seq: state.seq,
                                                             unreadCount: unread))
            return .differenceSlice(.init(newMessages: newMessages, newEncryptedMessages: [], otherUpdates: otherUpdates,
                                          chats: channels.chats, users: users, intermediateState: intermediate))
        }
        let final = API.updates.State.state(.init(pts: state.pts, qts: state.qts, date: max(state.date, now), seq: state.seq,
                                                  unreadCount: unread))
        return .difference(.init(newMessages: newMessages, newEncryptedMessages: [], otherUpdates: otherUpdates,
                                 chats: channels.chats, users: users, state: final))
    }

    private static func collectUsers(of message: API.Message, into ids: inout Set<Int64>) {
        guard case let .message(value) = message else { return }
        if case let .peerUser(peer) = value.peerId { ids.insert(peer.userId) }
        if case let .peerUser(peer)? = value.fromId { ids.insert(peer.userId) }
    }
}
