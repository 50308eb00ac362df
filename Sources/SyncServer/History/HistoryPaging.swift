import MTProto

/// `messages.getHistory`'s paging parameters (core.telegram.org/api/offsets) turned into storage reads.
///
/// Results are newest first. `offset_id` (or, when it is 0, `offset_date`) marks a position: messages strictly
/// older than it are taken, after skipping `add_offset` of them; a negative `add_offset` takes that many messages
/// at or above the position first. `max_id`/`min_id` bound the ids (exclusive) before positioning. `limit` is
/// capped at 100, Telegram's page size.
///
/// A page costs what it returns, not what it skips nor the chat's size: history skips `add_offset` rows on the chat's
/// id index alone (`StorageReader.messageID(owner:peer:in:)`, then the page below that id), at most `maximumSkip`
/// of them (`OFFSET_INVALID` above: a skip past every message of a 20,000-message chat read each row, 0.13 s of CPU
/// per call); a search skips in its own statement, bounded the same way.
public struct HistoryPaging: Sendable {
    var offsetID: Int32
    var offsetDate: Int32
    var addOffset: Int32
    var limit: Int32
    var maxID: Int32
    var minID: Int32

    static let maximumLimit: Int32 = 100
    /// Rows `add_offset` may skip: enough to page ten thousand messages deep by offset, and a bounded read of the
    /// index beyond that.
    public static let maximumSkip: Int32 = 10_000

    init(offsetID: Int32, offsetDate: Int32, addOffset: Int32, limit: Int32, maxID: Int32, minID: Int32) throws(RPCError) {
        guard addOffset <= Self.maximumSkip else { throw .badRequest("OFFSET_INVALID") }
        (self.offsetID, self.offsetDate, self.addOffset, self.limit, self.maxID, self.minID) = (offsetID, offsetDate, addOffset, limit, maxID, minID)
    }
    /// Bytes of text and entities one page carries at most: a page of the largest messages clients may send is cut
    /// short (the client pages on from its last message), so no stored history makes an answer too large to frame.
    static let pageBytes = 512 * 1024

    /// The leading rows whose sizes add up to at most `pageBytes` (always the first, which alone is far smaller).
    static func fitting<Row>(_ rows: [Row], size: (Row) -> Int) -> [Row] {
        var total = 0
        for (index, row) in rows.enumerated() {
            total += size(row) + 64
            if total > pageBytes, index > 0 { return Array(rows.prefix(index)) }
        }
        return rows
    }

    func page(owner: Int64, peer: PeerRef, in tx: any StorageReader) throws -> [StoredMessage] {
        try page(rows: { try tx.messages(owner: owner, peer: peer, in: $0) },
                 skipTo: { try tx.messageID(owner: owner, peer: peer, in: $0) },
                 lastID: { try tx.lastMessageID(owner: owner, peer: peer, atOrBefore: $0) })
    }

    func page(channel: Int64, in tx: any StorageReader) throws -> [ChannelMessage] {
        try page(rows: { try tx.channelMessages(channel: channel, in: $0) },
                 skipTo: { try tx.channelMessageID(channel: channel, in: $0) },
                 lastID: { try tx.lastChannelMessageID(channel: channel, atOrBefore: $0) })
    }

    /// A page of `messages.search` (which has no `offset_date`): the matching messages, positioned as history is.
    func page(owner: Int64, peer: PeerRef, matching search: MessageSearch, in tx: any StorageReader) throws -> [StoredMessage] {
        try page(rows: { try tx.searchMessages(owner: owner, peer: peer, matching: search, in: $0) }, lastID: { _ in nil })
    }

    func page(channel: Int64, matching search: MessageSearch, in tx: any StorageReader) throws -> [ChannelMessage] {
        try page(rows: { try tx.searchChannelMessages(channel: channel, matching: search, in: $0) }, lastID: { _ in nil })
    }

    /// The page over any message sequence: `rows` reads ids in a range, `skipTo` the id a skip lands on (nil: `rows`
    /// skips itself), `lastID` the newest id sent at or before a date.
    private func page<Row>(rows: (IDRange) throws -> [Row], skipTo: ((IDRange) throws -> Int32?)? = nil,
                           lastID: (Int32) throws -> Int32?) throws -> [Row] {
        let limit = Int(max(0, min(limit, Self.maximumLimit)))
        guard limit > 0 else { return [] }
        let upper = maxID > 0 ? maxID : Int32.max
        let lower = max(minID, 0)
        // A negative add_offset spends that much of the limit above the position (Int64: -Int32.min overflows Int32).
        let above = addOffset < 0 ? min(limit, Int(-Int64(addOffset))) : 0
        var position = offsetID > 0 ? offsetID : Int32.max
        if offsetID <= 0, offsetDate > 0 {
            // The first message strictly older than offset_date: position just above the newest such message.
            guard let newest = try lastID(offsetDate - 1) else {
                return try newer(than: 0, count: above, lower: lower, upper: upper, rows: rows)
            }
            position = newest + 1
        }
        var result: [Row] = []
        let older = limit - above
        let skip = addOffset > 0 ? Int(addOffset) : 0
        if above > 0 {
            result = try newer(than: position - 1, count: above, lower: lower, upper: upper, rows: rows)
        }
        if older > 0 {
            var range = IDRange(above: lower, below: min(position, upper), newestFirst: true, limit: older, skip: skip)
            if skip > 0, let skipTo {
                guard let start = try skipTo(range) else { return result }   // fewer rows than the skip
                (range.below, range.skip) = (start + 1, 0)
            }
            result += try rows(range)
        }
        return result
    }

    /// Up to `count` messages with ids above `id`, nearest first, returned newest first.
    private func newer<Row>(than id: Int32, count: Int, lower: Int32, upper: Int32, rows: (IDRange) throws -> [Row]) throws -> [Row] {
        guard count > 0 else { return [] }
        return try rows(IDRange(above: max(id, lower), below: upper, newestFirst: false, limit: count)).reversed()
    }
}
