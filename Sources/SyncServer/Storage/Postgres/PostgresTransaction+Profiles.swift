import PostgresNIO

/// Profile changes, who is told of them, and the seq log of the updates that tell them.
extension PostgresTransaction {
    /// The whole row from the record's parameters (`$1` is the id).
    enum UpdateUser: PostgresSQL {
        static let sql = "UPDATE users SET (\(userColumns)) = (\(UserColumn.postgresParameters())) WHERE id = $1"
    }
    /// Delivered with the COMMIT, to every process (`CommitAnnouncement.profileChanged`).
    enum AnnounceProfile: PostgresSQL { static let sql = "SELECT pg_notify('\(CommitAnnouncement.channel)', $1)" }
    enum DialogOwners: PostgresSQL {
        static let sql = "SELECT owner FROM dialogs WHERE peer_type = $1 AND peer_id = $2 ORDER BY owner LIMIT $3"
    }
    enum AppendSeqEvent: PostgresSQL {
        static let sql = "INSERT INTO user_seq_events (user_id, \(SeqEventColumn.list)) VALUES ($1, \(SeqEventColumn.postgresParameters(from: 2)))"
    }
    enum SeqEventsSince: PostgresSQL {
        static let sql = """
            SELECT \(SeqEventColumn.list) FROM user_seq_events WHERE user_id = $1 AND date >= $2 ORDER BY seq LIMIT $3
            """
    }
    enum SeqEventsInRange: PostgresSQL {
        static let sql = "SELECT \(SeqEventColumn.list) FROM user_seq_events WHERE user_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq"
    }

    /// This process's cache forgets the row at once (a read later in this transaction sees the new row), and every
    /// process's, this one's again included, when the announcement arrives after the COMMIT.
    func update(_ user: UserRecord) throws {
        insertedUsers.insert(user.id)
        users.forget([user.id])
        try change(UpdateUser.self, RecordParameters(user))
        try change(AnnounceProfile.self, CommitAnnouncement.profileChanged(user.id))
    }

    func dialogOwners(peer: PeerRef, limit: Int) throws -> [Int64] {
        try query(DialogOwners.self, Int16(peer.typeCode), peer.id, Int64(limit)).map { try $0.decode(Int64.self) }
    }

    func appendSeqEvent(_ event: StoredSeqEvent, user: Int64) throws {
        try change(AppendSeqEvent.self, user, RecordParameters(event))
        memory.log(CommittedEvent(box: .user(user), pts: event.seq, ptsCount: 1, sequenced: true))
    }

    func seqEvents(user: Int64, since date: Int32, limit: Int) throws -> [StoredSeqEvent] {
        try query(SeqEventsSince.self, user, date, Int64(limit)).map { try $0.record(StoredSeqEvent.self) }
    }

    func seqEvents(user: Int64, afterSeq: Int32, upTo: Int32) throws -> [StoredSeqEvent] {
        try query(SeqEventsInRange.self, user, afterSeq, upTo).map { try $0.record(StoredSeqEvent.self) }
    }
}
