import TL

/// `messages.readHistory` of a dialog kept in the per-user boxes (private chats and basic groups): the reader's
/// read-inbox mark and unread count, and for each sender of what was read, their read-outbox mark in their own box's
/// ids (through the id that links the copies), each an event in its owner's box (core.telegram.org/api/updates).
enum DialogReads {
    /// What a read changed: the reader's inbox event and the senders' outbox events.
    struct Outcome: Sendable {
        let readerPts: Int32
        let readerPtsCount: Int32
        let readerUpdate: API.Update?
        var senders: [(user: Int64, update: API.Update)] = []
    }

    static func readHistory(reader: Int64, peer: PeerRef, maxID: Int32, date: Int32, in tx: any StorageWriter) throws -> Outcome {
        // Boxes first: the dialog rows read next are changed only by writers holding them.
        let senders = try senders(toward: reader, in: peer, tx: tx)
        try tx.lockBoxes(users: [reader] + senders.map(\.0))
        guard var dialog = try tx.dialog(owner: reader, peer: peer),
              case let upTo = maxID <= 0 ? dialog.topMessage : min(maxID, dialog.topMessage), upTo > dialog.readInboxMaxID
        else { return Outcome(readerPts: try tx.state(user: reader).pts, readerPtsCount: 0, readerUpdate: nil) }
        dialog.readInboxMaxID = upTo
        dialog.unreadCount = Int32(try tx.incomingCount(owner: reader, peer: peer, above: upTo))
        try tx.upsert(dialog)
        var box = try UserBox(user: reader, tx: tx)
        let read = try box.record(ptsCount: 1, date: date) { [unread = dialog.unreadCount] pts in
            .updateReadHistoryInbox(.init(peer: TLRendering.peer(peer), maxId: upTo, stillUnreadCount: unread, pts: pts, ptsCount: 1))
        }
        try box.save()
        var outcome = Outcome(readerPts: read.pts, readerPtsCount: 1, readerUpdate: read.update)
        for (sender, senderPeer) in senders {
            guard let linked = try tx.lastMessage(owner: reader, peer: peer, from: sender, atOrBelow: upTo)?.counterpartID,
                  let update = try markOutboxRead(owner: sender, peer: senderPeer, upTo: linked, date: date, in: tx)
            else { continue }
            outcome.senders.append((sender, update))
        }
        return outcome
    }

    /// Who may have sent what the reader read, and the dialog as each of them sees it.
    private static func senders(toward reader: Int64, in peer: PeerRef, tx: any StorageReader) throws -> [(Int64, PeerRef)] {
        switch peer {
        case let .user(other) where other != reader:
            return [(other, .user(reader))]
        case let .chat(id):
            return try tx.chatMembers(chat: id).map(\.userID).filter { $0 != reader }.map { ($0, .chat(id)) }
        default:
            return []
        }
    }

    private static func markOutboxRead(owner: Int64, peer: PeerRef, upTo: Int32, date: Int32, in tx: any StorageWriter) throws -> API.Update? {
        guard var dialog = try tx.dialog(owner: owner, peer: peer), upTo > dialog.readOutboxMaxID else { return nil }
        dialog.readOutboxMaxID = upTo
        try tx.upsert(dialog)
        var box = try UserBox(user: owner, tx: tx)
        let outbox = try box.record(ptsCount: 1, date: date) { pts in
            .updateReadHistoryOutbox(.init(peer: TLRendering.peer(peer), maxId: upTo, pts: pts, ptsCount: 1))
        }
        try box.save()
        return outbox.update
    }
}
