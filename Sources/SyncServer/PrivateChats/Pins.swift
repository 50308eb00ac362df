import MTProto
import TL

/// Pinned messages (`messages.updatePinnedMessage`, core.telegram.org/api/pin) in private chats and basic groups. A pin
/// changes the copy in every box that holds the message — with `pm_oneside`, the caller's only — and is one
/// `updatePinnedMessages` in each box whose copy changed (pts + 1). A pin for everyone also adds a
/// `messageActionPinMessage` service message replying to the pinned message, as Telegram shows "X pinned …"; an
/// unpin adds none. Pinning what is already pinned changes nothing.
enum Pins {
    static func update(by user: Int64, peer: PeerRef, id: Int32, pinned: Bool, oneSide: Bool, date: Int32,
                       in tx: any StorageWriter) throws -> PrivateEdits.Outcome {
        guard let message = try tx.message(owner: user, id: id), message.peer == peer, message.action == nil else {
            throw RPCError.badRequest("MESSAGE_ID_INVALID")
        }
        try BasicGroupRestrictions.checkCanPin(by: user, in: peer, tx: tx)
        let copies = [message] + (oneSide ? [] : try PrivateEdits.otherCopies(of: message, in: tx))
        try tx.lockBoxes(users: copies.map(\.owner))
        var outcome = PrivateEdits.Outcome(callerPts: try tx.state(user: user).pts, callerPtsCount: 0)
        for var copy in copies where copy.pinned != pinned {
            copy.pinned = pinned
            try tx.upsert(copy)
            var box = try UserBox(user: copy.owner, tx: tx)
            let (pts, update) = try box.record(ptsCount: 1, date: date) { [copy] pts in
                .updatePinnedMessages(.init(pinned: pinned, peer: TLRendering.peer(copy.peer), messages: [copy.id], pts: pts, ptsCount: 1))
            }
            try box.save()
            if copy.owner == user { (outcome.callerPts, outcome.callerPtsCount) = (pts, 1) }
            outcome.events.append(.init(user: copy.owner, update: update))
        }
        guard pinned, !oneSide, !outcome.events.isEmpty else { return outcome }
        for (owner, message, pts) in try announce(message, by: user, date: date, in: tx) {
            if owner == user { outcome.callerPts = pts }
            outcome.events.append(.init(user: owner, update: .updateNewMessage(.init(message: TLRendering.message(message), pts: pts,
                                                                                    ptsCount: 1))))
        }
        return outcome
    }

    /// The "pinned a message" service message in every box of the chat, each replying to that box's copy.
    private static func announce(_ pinned: StoredMessage, by user: Int64, date: Int32,
                                 in tx: any StorageWriter) throws -> [(owner: Int64, message: StoredMessage, pts: Int32)] {
        let action = API.MessageAction.messageActionPinMessage(.init()).serialized()
        switch pinned.peer {
        case let .user(other):
            let sent = try PrivateMessaging.deliver(from: user, to: other, replyingTo: pinned.id, date: date, in: tx) { owner, id, counterpart in
                StoredMessage(owner: owner, id: id, peer: .user(owner == user ? other : user), fromID: user, out: owner == user,
                              date: date, text: "", counterpartID: counterpart, action: action)
            }
            return [(user, sent.senderCopy, sent.senderPts)] + (sent.recipientCopy.map { [($0.owner, $0, sent.recipientPts)] } ?? [])
        case let .chat(chatID):
            let (chat, members) = try BasicGroups.membership(of: chatID, user: user, in: tx)
            let replies = try Replies.copies(of: pinned.id, sender: user, in: tx)
            let copies = try BasicGroups.deliver(from: user, to: chat, members: members.map(\.userID), date: date, in: tx) { owner, id, origin in
                StoredMessage(owner: owner, id: id, peer: .chat(chat.id), fromID: user, out: owner == user, date: date, text: "",
                              counterpartID: origin, action: action, replyTo: replies[owner])
            }
            return copies.map { ($0.message.owner, $0.message, $0.pts) }
        case .channel:
            return []
        }
    }
}

extension Pins {
    /// The newest message of a chat pinned in `owner`'s box: the `pinned_msg_id` clients show above a chat.
    static func newest(owner: Int64, peer: PeerRef, in tx: any StorageReader) throws -> Int32? {
        try tx.searchMessages(owner: owner, peer: peer, matching: MessageSearch(pinnedOnly: true),
                              in: IDRange(above: 0, below: .max, newestFirst: true, limit: 1)).first?.id
    }

    /// The newest pinned message of a channel.
    static func newest(channel: Int64, in tx: any StorageReader) throws -> Int32? {
        try tx.searchChannelMessages(channel: channel, matching: MessageSearch(pinnedOnly: true),
                                     in: IDRange(above: 0, below: .max, newestFirst: true, limit: 1)).first?.id
    }
}
