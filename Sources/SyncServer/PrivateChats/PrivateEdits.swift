import MTProto
import TL

/// Edits and deletions of messages in users' boxes. A private message has a copy in each party's box, a basic-group
/// message one in each member's; an edit or a revoking delete changes every copy and is one event in each box
/// (pts_count 1 for an edit, the number of ids for a delete), in the transaction that stores it.
enum PrivateEdits {
    /// One box's event and the user it belongs to (what a push sends).
    struct BoxEvent: Sendable {
        let user: Int64
        let update: API.Update
    }

    struct Outcome: Sendable {
        var callerPts: Int32
        var callerPtsCount: Int32
        var events: [BoxEvent] = []
    }

    static func edit(by editor: Int64, peer: PeerRef, id: Int32, _ edit: MessageEdit, date: Int32,
                     in tx: any StorageWriter) throws -> Outcome {
        guard let message = try tx.message(owner: editor, id: id), message.peer == peer else {
            throw RPCError.badRequest("MESSAGE_ID_INVALID")
        }
        guard message.out else { throw RPCError(code: 403, message: "MESSAGE_AUTHOR_REQUIRED") }
        let (text, entities, media) = try edit.applied(text: message.text, entities: message.entities, media: message.outgoingMedia)
        let copies = [message] + (try otherCopies(of: message, in: tx))
        var outcome = Outcome(callerPts: 0, callerPtsCount: 1)
        try tx.lockBoxes(users: copies.map(\.owner))
        for var copy in copies {
            copy.text = text
            copy.entities = entities
            (copy.media, copy.mediaKind) = (media?.bytes, media?.kind ?? .none)
            copy.editDate = date
            try tx.upsert(copy)
            var box = try UserBox(user: copy.owner, tx: tx)
            let (pts, update) = try box.record(ptsCount: 1, date: date) { [copy] pts in
                .updateEditMessage(.init(message: TLRendering.message(copy), pts: pts, ptsCount: 1))
            }
            try box.save()
            if copy.owner == editor { outcome.callerPts = pts }
            outcome.events.append(BoxEvent(user: copy.owner, update: update))
        }
        return outcome
    }

    /// Deletes the caller's messages among `ids` (unknown ids are ignored, as Telegram ignores them); with
    /// `revoke`, the other party's copies of private messages and the members' copies of the caller's own basic-group
    /// messages too. Dialog tops and unread counts follow.
    static func delete(by user: Int64, ids: [Int32], revoke: Bool, date: Int32, in tx: any StorageWriter) throws -> Outcome {
        var byOwner: [Int64: [StoredMessage]] = [:]
        for id in Set(ids).sorted() {
            guard let message = try tx.message(owner: user, id: id) else { continue }
            byOwner[user, default: []].append(message)
            guard revoke else { continue }
            if case .chat = message.peer, !message.out { continue }
            for theirs in try otherCopies(of: message, in: tx) { byOwner[theirs.owner, default: []].append(theirs) }
        }
        try tx.lockBoxes(users: [user] + byOwner.keys)
        var outcome = Outcome(callerPts: try tx.state(user: user).pts, callerPtsCount: 0)
        for (owner, messages) in byOwner.sorted(by: { $0.key < $1.key }) {
            for message in messages { try tx.deleteMessage(owner: owner, id: message.id) }
            for peer in Set(messages.map(\.peer)) { try refreshDialog(owner: owner, peer: peer, in: tx) }
            let deleted = messages.map(\.id)
            let count = Int32(deleted.count)
            var box = try UserBox(user: owner, tx: tx)
            let (pts, update) = try box.record(ptsCount: count, date: date) { pts in
                .updateDeleteMessages(.init(messages: deleted, pts: pts, ptsCount: count))
            }
            try box.save()
            if owner == user { (outcome.callerPts, outcome.callerPtsCount) = (pts, count) }
            outcome.events.append(BoxEvent(user: owner, update: update))
        }
        return outcome
    }

    /// The copies of `message` in the other boxes that hold it: the other party's for a private message (through
    /// its counterpart id), every other member's for a basic-group message (through its id in the sender's box).
    static func otherCopies(of message: StoredMessage, in tx: any StorageReader) throws -> [StoredMessage] {
        switch message.peer {
        case let .user(other) where other != message.owner:
            return try message.counterpartID.flatMap { try tx.message(owner: other, id: $0) }.map { [$0] } ?? []
        case let .chat(chat):
            guard let sender = message.fromID, let origin = message.counterpartID else { return [] }
            return try tx.chatMembers(chat: chat).map(\.userID).filter { $0 != message.owner }.compactMap { member in
                try tx.linkedCopy(owner: member, peer: message.peer, from: sender, link: origin)
            }
        default:
            return []
        }
    }

    /// After deletions: the top message is the newest one left, the unread count what is left above the read mark.
    private static func refreshDialog(owner: Int64, peer: PeerRef, in tx: any StorageWriter) throws {
        guard var dialog = try tx.dialog(owner: owner, peer: peer) else { return }
        let newest = try tx.messages(owner: owner, peer: peer, in: IDRange(above: 0, below: .max, newestFirst: true, limit: 1)).first
        dialog.topMessage = newest?.id ?? 0
        dialog.topDate = newest?.date ?? dialog.topDate
        dialog.unreadCount = Int32(clamping: try tx.incomingCount(owner: owner, peer: peer, above: dialog.readInboxMaxID))
        try tx.upsert(dialog)
    }
}
