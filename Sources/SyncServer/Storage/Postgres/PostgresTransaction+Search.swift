import PostgresNIO

/// `messages.search` in PostgreSQL: the history statements with the search's conditions (`MessageSearch`). Texts are
/// the UTF-8 the server wrote, so `convert_from` reads every stored row.
extension PostgresTransaction {
    /// Conditions after the chat's own, numbered from `$6`: query, sender, pinned only, first and last date.
    static let searchMatches = """
        AND ($6 = '' OR strpos(lower(convert_from(text, 'UTF8')), lower($6)) > 0) AND ($7 = 0 OR from_id = $7)
        AND (NOT $8 OR pinned) AND date >= $9 AND date <= $10
        """
    static let chatSearch = "owner = $1 AND peer_type = $2 AND peer_id = $3 AND action IS NULL"
    /// `$2` and `$3` are bound and unused, so both kinds of chat number the search's conditions alike.
    static let channelSearch = "channel_id = $1 AND $2::smallint IS NOT NULL AND $3::bigint IS NOT NULL AND octet_length(action) = 0"

    enum SearchNewestFirst: PostgresSQL {
        static let sql = "SELECT \(messageColumns) FROM messages WHERE \(chatSearch) AND id > $4 AND id < $5 \(searchMatches) ORDER BY id DESC LIMIT $11 OFFSET $12"
    }
    enum SearchOldestFirst: PostgresSQL {
        static let sql = "SELECT \(messageColumns) FROM messages WHERE \(chatSearch) AND id > $4 AND id < $5 \(searchMatches) ORDER BY id ASC LIMIT $11 OFFSET $12"
    }
    enum SearchCount: PostgresSQL {
        static let sql = "SELECT COUNT(*) FROM messages WHERE \(chatSearch) AND id > $4 AND id < $5 \(searchMatches)"
    }
    enum ChannelSearchNewestFirst: PostgresSQL {
        static let sql = """
            SELECT \(channelMessageColumns) FROM channel_messages WHERE \(channelSearch) AND id > $4 AND id < $5 \(searchMatches)
            ORDER BY id DESC LIMIT $11 OFFSET $12
            """
    }
    enum ChannelSearchOldestFirst: PostgresSQL {
        static let sql = """
            SELECT \(channelMessageColumns) FROM channel_messages WHERE \(channelSearch) AND id > $4 AND id < $5 \(searchMatches)
            ORDER BY id ASC LIMIT $11 OFFSET $12
            """
    }
    enum ChannelSearchCount: PostgresSQL {
        static let sql = "SELECT COUNT(*) FROM channel_messages WHERE \(channelSearch) AND id > $4 AND id < $5 \(searchMatches)"
    }

    func searchMessages(owner: Int64, peer: PeerRef, matching search: MessageSearch, in range: IDRange) throws -> [StoredMessage] {
        let (type, limit, skip) = (Int16(peer.typeCode), Int64(range.limit), Int64(range.skip))
        let (q, from, pinned, first, last) = Self.values(search)
        let rows = range.newestFirst
            ? try query(SearchNewestFirst.self, owner, type, peer.id, range.above, range.below, q, from, pinned, first, last, limit, skip)
            : try query(SearchOldestFirst.self, owner, type, peer.id, range.above, range.below, q, from, pinned, first, last, limit, skip)
        return try rows.map { try $0.record(StoredMessage.self) }
    }

    func searchCount(owner: Int64, peer: PeerRef, matching search: MessageSearch) throws -> Int {
        let (q, from, pinned, first, last) = Self.values(search)
        return Int(try query(SearchCount.self, owner, Int16(peer.typeCode), peer.id, Int32.min, Int32.max, q, from, pinned, first, last)
            .first?.decode(Int64.self) ?? 0)
    }

    func searchChannelMessages(channel: Int64, matching search: MessageSearch, in range: IDRange) throws -> [ChannelMessage] {
        let (limit, skip) = (Int64(range.limit), Int64(range.skip))
        let (q, from, pinned, first, last) = Self.values(search)
        let rows = range.newestFirst
            ? try query(ChannelSearchNewestFirst.self, channel, Int16(0), Int64(0), range.above, range.below, q, from, pinned, first, last,
                        limit, skip)
            : try query(ChannelSearchOldestFirst.self, channel, Int16(0), Int64(0), range.above, range.below, q, from, pinned, first, last,
                        limit, skip)
        return try rows.map { try $0.record(ChannelMessage.self) }
    }

    func searchChannelCount(channel: Int64, matching search: MessageSearch) throws -> Int {
        let (q, from, pinned, first, last) = Self.values(search)
        return Int(try query(ChannelSearchCount.self, channel, Int16(0), Int64(0), Int32.min, Int32.max, q, from, pinned, first, last)
            .first?.decode(Int64.self) ?? 0)
    }

    private static func values(_ search: MessageSearch) -> (String, Int64, Bool, Int32, Int32) {
        (search.query, search.fromID, search.pinnedOnly, search.dates.lowerBound, search.dates.upperBound)
    }
}
