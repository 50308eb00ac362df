/// Messages of the per-user boxes: what the PostgreSQL transaction keeps in memory until its flush.
extension PostgresTransaction {
    static let messageColumns = MessageColumn.list

    func upsert(_ message: StoredMessage) throws {
        memory.upsert(message)
    }

    func raiseDialog(owner: Int64, peer: PeerRef, topMessage: Int32, date: Int32, unread: Int32, readInboxTo: Int32) throws {
        memory.raiseDialog(DialogKey(owner: owner, peer: peer),
                           DialogRaise(topMessage: topMessage, date: date, unread: unread, readInboxTo: readInboxTo))
    }
}
