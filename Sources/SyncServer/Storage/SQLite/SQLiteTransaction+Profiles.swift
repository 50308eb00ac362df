import GRDB

/// Profile changes, who is told of them, and the seq log of the updates that tell them.
extension SQLiteTransaction {
    func update(_ user: UserRecord) throws {
        batch?.updated(user.id)
        try RawStatement(db, sql: "UPDATE users SET (\(Self.userColumns)) = (\(UserColumn.sqliteParameters)) WHERE id = ?")
            .execute { row in row.add(record: user); row.add(user.id) }
    }

    func dialogOwners(peer: PeerRef, limit: Int) throws -> [Int64] {
        try batch?.flushDialogs()
        return try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT owner FROM dialogs INDEXED BY dialogs_by_peer WHERE peer_type = ? AND peer_id = ? ORDER BY owner LIMIT ?
            """), arguments: [peer.typeCode, peer.id, limit])
    }

    func appendSeqEvent(_ event: StoredSeqEvent, user: Int64) throws {
        try RawStatement(db, sql: "INSERT INTO user_seq_events (user_id, \(SeqEventColumn.list)) VALUES (?, \(SeqEventColumn.sqliteParameters))")
            .execute { row in row.add(user); row.add(record: event) }
    }

    func seqEvents(user: Int64, since date: Int32, limit: Int) throws -> [StoredSeqEvent] {
        try RawStatement(db, sql: """
            SELECT \(SeqEventColumn.list) FROM user_seq_events WHERE user_id = ? AND date >= ? ORDER BY seq LIMIT ?
            """).fetchAll({ row in
                row.add(user)
                row.add(date)
                row.add(limit)
            }) { try $0.record(StoredSeqEvent.self) }
    }

    func seqEvents(user: Int64, afterSeq: Int32, upTo: Int32) throws -> [StoredSeqEvent] {
        try RawStatement(db, sql: """
            SELECT \(SeqEventColumn.list) FROM user_seq_events WHERE user_id = ? AND seq > ? AND seq <= ? ORDER BY seq
            """).fetchAll({ row in
                row.add(user)
                row.add(afterSeq)
                row.add(upTo)
            }) { try $0.record(StoredSeqEvent.self) }
    }
}
