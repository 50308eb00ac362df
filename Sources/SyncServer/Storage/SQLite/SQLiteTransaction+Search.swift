import GRDB

/// `messages.search` in SQLite: the history statements with the search's conditions (`MessageSearch`). SQLite's
/// `lower` folds ASCII letters only.
extension SQLiteTransaction {
    /// Conditions after the chat's own, numbered from `?6`: query, sender, pinned only, first and last date. The chat's
    /// own are `?1`…`?5` (owner, peer type, peer id, ids above, ids below), the channel's `?1`, `?4` and `?5`; a count
    /// binds what it does not use.
    private static let matches = """
        AND (?6 = '' OR instr(lower(CAST(text AS TEXT)), lower(?6)) > 0) AND (?7 = 0 OR from_id = ?7)
        AND (?8 = 0 OR pinned = 1) AND date >= ?9 AND date <= ?10
        """

    private static func arguments(_ chat: [any DatabaseValueConvertible], _ search: MessageSearch) -> StatementArguments {
        StatementArguments(chat + [search.query, search.fromID, search.pinnedOnly, search.dates.lowerBound, search.dates.upperBound])
    }

    func searchMessages(owner: Int64, peer: PeerRef, matching search: MessageSearch, in range: IDRange) throws -> [StoredMessage] {
        let order = range.newestFirst ? "DESC" : "ASC"
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.messageColumns) FROM messages INDEXED BY messages_by_dialog
            WHERE owner = ?1 AND peer_type = ?2 AND peer_id = ?3 AND id > ?4 AND id < ?5 AND action IS NULL \(Self.matches)
            ORDER BY id \(order) LIMIT ?11 OFFSET ?12
            """), arguments: Self.arguments([owner, peer.typeCode, peer.id, range.above, range.below], search) + [range.limit, range.skip])
            .map { try $0.record(StoredMessage.self) }
    }

    func searchCount(owner: Int64, peer: PeerRef, matching search: MessageSearch) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM messages INDEXED BY messages_by_dialog
            WHERE owner = ?1 AND peer_type = ?2 AND peer_id = ?3 AND action IS NULL \(Self.matches)
            """), arguments: Self.arguments([owner, peer.typeCode, peer.id, 0, 0], search)) ?? 0
    }

    func searchChannelMessages(channel: Int64, matching search: MessageSearch, in range: IDRange) throws -> [ChannelMessage] {
        let order = range.newestFirst ? "DESC" : "ASC"
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.channelMessageColumns) FROM channel_messages
            WHERE channel_id = ?1 AND id > ?4 AND id < ?5 AND length(action) = 0 \(Self.matches)
            ORDER BY id \(order) LIMIT ?11 OFFSET ?12
            """), arguments: Self.arguments([channel, 0, 0, range.above, range.below], search) + [range.limit, range.skip])
            .map { try $0.record(ChannelMessage.self) }
    }

    func searchChannelCount(channel: Int64, matching search: MessageSearch) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM channel_messages
            WHERE channel_id = ?1 AND length(action) = 0 \(Self.matches)
            """), arguments: Self.arguments([channel, 0, 0, 0, 0], search)) ?? 0
    }
}
