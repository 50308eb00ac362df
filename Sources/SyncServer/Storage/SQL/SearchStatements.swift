/// `messages.search` over a chat's history, written once for both backends (`SQLText`): the history statements with
/// the search's conditions (`MessageSearch`). Each statement binds, after the chat's own parameters and the id range,
/// the query twice, the sender twice, the pinned-only flag, the first and last date and the media kinds twice (a mask
/// of `MediaKind` bits, 0 for any message).
enum SearchSQL {
    /// The conditions after the chat's own. Texts are the UTF-8 the server wrote; PostgreSQL reads them with
    /// `convert_from`, SQLite as TEXT (`sqlite(_:)`); both fold ASCII letters only.
    static let matches = """
        AND (? = '' OR strpos(lower(convert_from(text, 'UTF8')), lower(?)) > 0) AND (? = 0 OR from_id = ?)
        AND (NOT ? OR pinned) AND date >= ? AND date <= ? AND (? = 0 OR ((? >> media_kind) & 1) = 1)
        """
    static let chat = "owner = ? AND peer_type = ? AND peer_id = ? AND action IS NULL AND id > ? AND id < ?"
    static let channel = "channel_id = ? AND length(action) = 0 AND id > ? AND id < ?"

    /// SQLite's spelling of the text match, and the dialog's index.
    static func sqlite(_ text: String, indexing table: String? = nil) -> String {
        let matched = text.replacingOccurrences(of: "strpos(lower(convert_from(text, 'UTF8')), lower(?))", with: "instr(lower(CAST(text AS TEXT)), lower(?))")
        guard let table else { return matched }
        return matched.replacingOccurrences(of: "FROM \(table) ", with: "FROM \(table) INDEXED BY \(MessageSQL.dialogIndex) ")
    }

    enum NewestFirst: SQLText {
        static let text = "SELECT \(MessageSQL.columns) FROM messages WHERE \(chat) \(matches) ORDER BY id DESC LIMIT ? OFFSET ?"
        static let sqliteText = sqlite(text, indexing: "messages")
    }
    enum OldestFirst: SQLText {
        static let text = "SELECT \(MessageSQL.columns) FROM messages WHERE \(chat) \(matches) ORDER BY id ASC LIMIT ? OFFSET ?"
        static let sqliteText = sqlite(text, indexing: "messages")
    }
    enum Count: SQLText {
        static let text = "SELECT COUNT(*) FROM messages WHERE \(chat) \(matches)"
        static let sqliteText = sqlite(text, indexing: "messages")
    }
    enum ChannelNewestFirst: SQLText {
        static let text = "SELECT \(ChannelSQL.messageColumns) FROM channel_messages WHERE \(channel) \(matches) ORDER BY id DESC LIMIT ? OFFSET ?"
        static let sqliteText = sqlite(text)
    }
    enum ChannelOldestFirst: SQLText {
        static let text = "SELECT \(ChannelSQL.messageColumns) FROM channel_messages WHERE \(channel) \(matches) ORDER BY id ASC LIMIT ? OFFSET ?"
        static let sqliteText = sqlite(text)
    }
    enum ChannelCount: SQLText {
        static let text = "SELECT COUNT(*) FROM channel_messages WHERE \(channel) \(matches)"
        static let sqliteText = sqlite(text)
    }
}

extension SQLStatements {
    func searchMessages(owner: Int64, peer: PeerRef, matching search: MessageSearch, in range: IDRange) throws -> [StoredMessage] {
        let (q, from, pinned, first, last) = (search.query, search.fromID, search.pinnedOnly, search.dates.lowerBound, search.dates.upperBound)
        let kinds = search.mediaKinds
        let (type, read) = (Code(peer.typeCode), { (cells: Cells) in try cells.record(StoredMessage.self) })
        return range.newestFirst
            ? try rows(SearchSQL.NewestFirst.self, owner, type, peer.id, range.above, range.below, q, q, from, from, pinned, first, last,
                       kinds, kinds, range.limit, range.skip, read: read)
            : try rows(SearchSQL.OldestFirst.self, owner, type, peer.id, range.above, range.below, q, q, from, from, pinned, first, last,
                       kinds, kinds, range.limit, range.skip, read: read)
    }

    func searchCount(owner: Int64, peer: PeerRef, matching search: MessageSearch) throws -> Int {
        let (q, from, pinned, first, last) = (search.query, search.fromID, search.pinnedOnly, search.dates.lowerBound, search.dates.upperBound)
        let kinds = search.mediaKinds
        return Int(try integer(SearchSQL.Count.self, owner, Code(peer.typeCode), peer.id, Int32.min, Int32.max, q, q, from, from, pinned,
                               first, last, kinds, kinds))
    }

    func searchChannelMessages(channel: Int64, matching search: MessageSearch, in range: IDRange) throws -> [ChannelMessage] {
        let (q, from, pinned, first, last) = (search.query, search.fromID, search.pinnedOnly, search.dates.lowerBound, search.dates.upperBound)
        let kinds = search.mediaKinds
        let read = { (cells: Cells) in try cells.record(ChannelMessage.self) }
        return range.newestFirst
            ? try rows(SearchSQL.ChannelNewestFirst.self, channel, range.above, range.below, q, q, from, from, pinned, first, last,
                       kinds, kinds, range.limit, range.skip, read: read)
            : try rows(SearchSQL.ChannelOldestFirst.self, channel, range.above, range.below, q, q, from, from, pinned, first, last,
                       kinds, kinds, range.limit, range.skip, read: read)
    }

    func searchChannelCount(channel: Int64, matching search: MessageSearch) throws -> Int {
        let (q, from, pinned, first, last) = (search.query, search.fromID, search.pinnedOnly, search.dates.lowerBound, search.dates.upperBound)
        let kinds = search.mediaKinds
        return Int(try integer(SearchSQL.ChannelCount.self, channel, Int32.min, Int32.max, q, q, from, from, pinned, first, last, kinds, kinds))
    }
}
