import MTProto
import TL

/// A private message as stored: one copy in the sender's box and one in the recipient's (Telegram numbers
/// messages per user box), each advancing its owner's pts by one.
struct SentPrivateMessage: Sendable {
    let senderCopy: StoredMessage
    let senderPts: Int32
    /// nil for a message to oneself (Saved Messages), which has one copy.
    let recipientCopy: StoredMessage?
    let recipientPts: Int32
    /// A retried `random_id`: the first send's result, and nothing new to push.
    let isRepeat: Bool
}

enum PrivateMessaging {
    /// Stores a new private message in both boxes, their update logs and dialogs, or finds the earlier result of
    /// the same `random_id`. Runs inside one write transaction. `replyTo`: a message of the chat, by its id in the
    /// sender's box (`Replies.target`). `reachesRecipient` false (the recipient blocked the sender, `Blocking`): the
    /// sender's copy only. A forwarded message's header (`Forwarding`) and media are on both copies.
    static func send(_ message: OutgoingMessage, from sender: Int64, to recipient: Int64, randomID: Int64, date: Int32,
                     reachesRecipient: Bool = true, in tx: any StorageWriter) throws -> SentPrivateMessage {
        if let earlier = try tx.sent(user: sender, randomID: randomID) {
            // A retry gets the first send's answer, even when the message was deleted since (by another device while
            // the answer was lost): the client learns the deletion from its pts like any other. The same random_id
            // in another chat is not a retry.
            let copy = try tx.message(owner: sender, id: earlier.messageID)
            guard earlier.channelID == nil, copy == nil || copy?.peer == .user(recipient) else {
                throw RPCError.badRequest("RANDOM_ID_DUPLICATE")
            }
            let answer = copy ?? StoredMessage(owner: sender, id: earlier.messageID, peer: .user(recipient), fromID: sender, out: true,
                                               date: earlier.date, text: message.text, entities: message.entities, counterpartID: nil)
            return SentPrivateMessage(senderCopy: answer, senderPts: earlier.pts, recipientCopy: nil, recipientPts: 0, isRepeat: true)
        }
        let sent = try deliver(from: sender, to: recipient, replyingTo: message.replyTo, date: date, reachesRecipient: reachesRecipient,
                               in: tx) { owner, id, counterpart in
            StoredMessage(owner: owner, id: id, peer: .user(owner == sender ? recipient : sender), fromID: sender,
                          out: owner == sender, date: date, text: message.text, entities: message.entities, counterpartID: counterpart,
                          forward: message.forward, media: message.media?.bytes, mediaKind: message.media?.kind ?? .none,
                          groupedID: message.groupedID)
        }
        try tx.recordSent(SentRecord(messageID: sent.senderCopy.id, pts: sent.senderPts, date: date), user: sender, randomID: randomID)
        return sent
    }

    /// Stores a new message in the recipient's box (unless it is the sender's own chat) and then the sender's, each
    /// logged as `updateNewMessage`: `make` builds each copy from its owner, its id in that box and the id of the
    /// other copy (the recipient's, for the sender's copy; the sender's, for the recipient's). A reply (`replyingTo`,
    /// an id in the sender's box) names each box's own copy of the replied message.
    static func deliver(from sender: Int64, to recipient: Int64, replyingTo replyTo: Int32? = nil, date: Int32,
                        reachesRecipient: Bool = true, in tx: any StorageWriter,
                        make: (_ owner: Int64, _ id: Int32, _ counterpart: Int32?) -> StoredMessage) throws -> SentPrivateMessage {
        try tx.lockBoxes(users: [sender, recipient])
        let replies = try Replies.copies(of: replyTo, sender: sender, in: tx)
        var senderBox = try UserBox(user: sender, tx: tx)
        let senderID = senderBox.takeMessageID()
        var recipientCopy: StoredMessage?
        var recipientPts: Int32 = 0
        if recipient != sender, reachesRecipient {
            var recipientBox = try UserBox(user: recipient, tx: tx)
            var copy = make(recipient, recipientBox.takeMessageID(), senderID)
            copy.replyTo = replies[recipient]
            recipientPts = try recipientBox.logNewMessage(copy)
            try recipientBox.save()
            recipientCopy = copy
        }
        var senderCopy = make(sender, senderID, recipientCopy?.id)
        senderCopy.replyTo = replyTo
        let senderPts = try senderBox.logNewMessage(senderCopy)
        try senderBox.save()
        return SentPrivateMessage(senderCopy: senderCopy, senderPts: senderPts, recipientCopy: recipientCopy,
                                  recipientPts: recipientPts, isRepeat: false)
    }
}
