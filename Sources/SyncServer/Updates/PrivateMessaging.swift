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
    /// the same `random_id`. Runs inside one write transaction.
    static func send(from sender: Int64, to recipient: Int64, text: String, entities: [UInt8], randomID: Int64, date: Int32,
                     in tx: any StorageWriter) throws -> SentPrivateMessage {
        if let earlier = try tx.sent(user: sender, randomID: randomID),
           let copy = try tx.message(owner: sender, id: earlier.messageID) {
            return SentPrivateMessage(senderCopy: copy, senderPts: earlier.pts, recipientCopy: nil, recipientPts: 0, isRepeat: true)
        }
        var senderBox = try UserBox(user: sender, tx: tx)
        let senderID = senderBox.takeMessageID()
        var recipientCopy: StoredMessage?
        var recipientPts: Int32 = 0
        var counterpart: Int32?
        if recipient != sender {
            var recipientBox = try UserBox(user: recipient, tx: tx)
            let copy = StoredMessage(owner: recipient, id: recipientBox.takeMessageID(), peer: .user(sender), fromID: sender,
                                     out: false, date: date, text: text, entities: entities, counterpartID: senderID)
            try tx.upsert(copy)
            recipientPts = try recipientBox.record(ptsCount: 1, date: date) { pts in
                .updateNewMessage(.init(message: TLRendering.message(copy), pts: pts, ptsCount: 1))
            }.pts
            try recipientBox.save()
            try raiseDialog(owner: recipient, peer: .user(sender), with: copy, in: tx)
            recipientCopy = copy
            counterpart = copy.id
        }
        let senderCopy = StoredMessage(owner: sender, id: senderID, peer: .user(recipient), fromID: sender, out: true, date: date,
                                       text: text, entities: entities, counterpartID: counterpart)
        try tx.upsert(senderCopy)
        let senderPts = try senderBox.record(ptsCount: 1, date: date) { pts in
            .updateNewMessage(.init(message: TLRendering.message(senderCopy), pts: pts, ptsCount: 1))
        }.pts
        try senderBox.save()
        try raiseDialog(owner: sender, peer: .user(recipient), with: senderCopy, in: tx)
        try tx.recordSent(SentRecord(messageID: senderID, pts: senderPts, date: date), user: sender, randomID: randomID)
        return SentPrivateMessage(senderCopy: senderCopy, senderPts: senderPts, recipientCopy: recipientCopy,
                                  recipientPts: recipientPts, isRepeat: false)
    }

    /// The dialog's top message follows the new message; a received one is unread; a message to oneself is read.
    static func raiseDialog(owner: Int64, peer: PeerRef, with message: StoredMessage, in tx: any StorageWriter) throws {
        try tx.raiseDialog(owner: owner, peer: peer, topMessage: message.id, date: message.date, unread: message.out ? 0 : 1,
                           readInboxTo: message.out && message.peer == .user(owner) ? message.id : 0)
    }
}
