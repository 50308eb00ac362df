import MTProto
import TL

/// `messages.unpinAllMessages` (core.telegram.org/api/pin): every pinned message of a chat unpinned in one step, at
/// most `perCall` at a time (the answer's `offset` says when more are left, and the client calls again). In private
/// chats and basic groups each box whose copies change gets one `updatePinnedMessages` listing its ids (pts + 1); in
/// a channel or supergroup an admin's call is one `updatePinnedChannelMessages` in the channel's log. No service
/// message, as for any unpin.
enum UnpinAll {
    static let perCall = 100

    struct Outcome: Sendable {
        var boxes: PrivateEdits.Outcome
        var more: Bool
    }

    static func boxes(by user: Int64, peer: PeerRef, date: Int32, in tx: any StorageWriter) throws -> Outcome {
        try BasicGroupRestrictions.checkCanPin(by: user, in: peer, tx: tx)
        let pinned = try tx.searchMessages(owner: user, peer: peer, matching: MessageSearch(pinnedOnly: true),
                                           in: IDRange(above: 0, below: .max, newestFirst: true, limit: perCall + 1))
        let taken = pinned.prefix(perCall)
        var copies: [StoredMessage] = []
        for message in taken { copies += [message] + (try PrivateEdits.otherCopies(of: message, in: tx)).filter(\.pinned) }
        let byOwner = Dictionary(grouping: copies, by: \.owner)
        try tx.lockBoxes(users: byOwner.keys.sorted())
        var outcome = Outcome(boxes: PrivateEdits.Outcome(callerPts: try tx.state(user: user).pts, callerPtsCount: 0),
                              more: pinned.count > perCall)
        for (owner, mine) in byOwner.sorted(by: { $0.key < $1.key }) {
            for var copy in mine {
                copy.pinned = false
                try tx.upsert(copy)
            }
            guard let shown = mine.first?.peer else { continue }
            var box = try UserBox(user: owner, tx: tx)
            let (pts, update) = try box.record(ptsCount: 1, date: date) { pts in
                .updatePinnedMessages(.init(pinned: false, peer: TLRendering.peer(shown), messages: mine.map(\.id).sorted(), pts: pts,
                                            ptsCount: 1))
            }
            try box.save()
            if owner == user { (outcome.boxes.callerPts, outcome.boxes.callerPtsCount) = (pts, 1) }
            outcome.boxes.events.append(.init(user: owner, update: update))
        }
        return outcome
    }

    static func channel(by user: Int64, channel channelID: Int64, date: Int32,
                        in tx: any StorageWriter) throws -> (channel: ChannelRecord, update: API.Update?, members: ChannelAudience, more: Bool) {
        let (channel, member) = try ChannelAccess.membership(of: channelID, user: user, in: tx)
        guard member.has(.pinMessages) else { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
        let pinned = try tx.searchChannelMessages(channel: channelID, matching: MessageSearch(pinnedOnly: true),
                                                  in: IDRange(above: 0, below: .max, newestFirst: true, limit: perCall + 1))
        let taken = pinned.prefix(perCall)
        guard !taken.isEmpty else { return (channel, nil, .nobody(answering: member), false) }
        for var message in taken {
            message.pinned = false
            try tx.upsert(message)
        }
        var box = ChannelBox(channel, tx: tx)
        let update = try box.record(ptsCount: 1, date: date) { pts in
            .updatePinnedChannelMessages(.init(pinned: false, channelId: channelID, messages: taken.map(\.id).sorted(), pts: pts, ptsCount: 1))
        }.update
        try box.save()
        return (box.channel, update, try ChannelAudience(channel: channelID, in: tx), pinned.count > perCall)
    }
}
