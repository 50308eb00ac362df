import MTProto
import TL

/// `updates.getState` and `updates.getDifference` over the user's common box (core.telegram.org/api/updates).
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
            let from = max(call.pts, 0)
            let (now, page, tooLong) = (server.now, server.configuration.differencePageSize, server.configuration.tooLongThreshold)
            return try await server.storageRead { tx in
                try Difference.compute(for: me, fromPts: from, now: now, pageSize: page, tooLong: tooLong, in: tx)
            }
        }
    }
}

/// The answer to `updates.getDifference(pts)`: empty when the client is current, too-long past the threshold,
/// otherwise the logged events after `pts` — new messages apart, every other update in `other_updates` — as one
/// `difference` or, when more remain than a page, a `differenceSlice` whose intermediate state the client
/// continues from.
enum Difference {
    static func compute(for user: Int64, fromPts: Int32, now: Int32, pageSize: Int, tooLong: Int,
                        in tx: any StorageReader) throws -> API.updates.Difference {
        let state = try tx.state(user: user)
        guard fromPts < state.pts else { return .differenceEmpty(.init(date: max(state.date, now), seq: state.seq)) }
        guard Int(state.pts) - Int(fromPts) <= tooLong else { return .differenceTooLong(.init(pts: state.pts)) }
        let events = try tx.events(user: user, afterPts: fromPts, limit: pageSize)
        var newMessages: [API.Message] = []
        var otherUpdates: [API.Update] = []
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
                                          chats: [], users: users, intermediateState: intermediate))
        }
        let final = API.updates.State.state(.init(pts: state.pts, qts: state.qts, date: max(state.date, now), seq: state.seq,
                                                  unreadCount: unread))
        return .difference(.init(newMessages: newMessages, newEncryptedMessages: [], otherUpdates: otherUpdates, chats: [],
                                 users: users, state: final))
    }

    private static func collectUsers(of message: API.Message, into ids: inout Set<Int64>) {
        guard case let .message(value) = message else { return }
        if case let .peerUser(peer) = value.peerId { ids.insert(peer.userId) }
        if case let .peerUser(peer)? = value.fromId { ids.insert(peer.userId) }
    }
}
