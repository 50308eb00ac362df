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
    /// sender's box (`Replies.target`).
    static func send(from sender: Int64, to recipient: Int64, text: String, entities: [UInt8], replyTo: Int32? = nil,
                     randomID: Int64, date: Int32, in tx: any StorageWriter) throws -> SentPrivateMessage {
        if let earlier = try tx.sent(user: sender, randomID: randomID) {
            // A retry gets the first send's answer, even when the message was deleted since (by another device while
            // the answer was lost): the client learns the deletion from its pts like any other. The same random_id
            // in another chat is not a retry.
            let copy = try tx.message(owner: sender, id: earlier.messageID)
            guard earlier.channelID == nil, copy == nil || copy?.peer == .user(recipient) else {
                throw RPCError.badRequest("RANDOM_ID_DUPLICATE")
            }
            let answer = copy ?? StoredMessage(owner: sender, id: earlier.messageID, peer: .user(recipient), fromID: sender, out: true,
                                               date: earlier.date, text: text, entities: entities, counterpartID: nil)
            return SentPrivateMessage(senderCopy: answer, senderPts: earlier.pts, recipientCopy: nil, recipientPts: 0, isRepeat: true)
        }
        try tx.lockBoxes(users: [sender, recipient])
        let replies = try Replies.copies(of: replyTo, sender: sender, in: tx)
        var senderBox = try UserBox(user: sender, tx: tx)
        let senderID = senderBox.takeMessageID()
        var recipientCopy: StoredMessage?
        var recipientPts: Int32 = 0
        var counterpart: Int32?
        if recipient != sender {
            var recipientBox = try UserBox(user: recipient, tx: tx)
            let copy = StoredMessage(owner: recipient, id: recipientBox.takeMessageID(), peer: .user(sender), fromID: sender,
                                     out: false, date: date, text: text, entities: entities, counterpartID: senderID,
                                     replyTo: replies[recipient])
            recipientPts = try recipientBox.logNewMessage(copy)
            try recipientBox.save()
            recipientCopy = copy
            counterpart = copy.id
        }
        let senderCopy = StoredMessage(owner: sender, id: senderID, peer: .user(recipient), fromID: sender, out: true, date: date,
                                       text: text, entities: entities, counterpartID: counterpart, replyTo: replyTo)
        let senderPts = try senderBox.logNewMessage(senderCopy)
        try senderBox.save()
        try tx.recordSent(SentRecord(messageID: senderID, pts: senderPts, date: date), user: sender, randomID: randomID)
        return SentPrivateMessage(senderCopy: senderCopy, senderPts: senderPts, recipientCopy: recipientCopy,
                                  recipientPts: recipientPts, isRepeat: false)
    }

}
