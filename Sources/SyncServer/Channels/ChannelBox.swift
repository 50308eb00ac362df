import TL

/// One channel's update sequence inside a write transaction (core.telegram.org/api/updates#channel-updates):
/// every new, edited or deleted message moves the channel's pts by its pts_count and is logged with the pts it
/// produced, in the transaction that stores the change. The mirror of `UserBox` for the channel's own log.
struct ChannelBox {
    private(set) var channel: ChannelRecord
    private let tx: any StorageWriter

    init(_ channel: ChannelRecord, tx: any StorageWriter) {
        self.channel = channel
        self.tx = tx
    }

    private mutating func takeMessageID() -> Int32 {
        defer { channel.nextMessageID += 1 }
        return channel.nextMessageID
    }

    /// Logs one event: `make` receives the new pts and builds the update that carries it.
    @discardableResult
    mutating func record(ptsCount: Int32, date: Int32, _ make: (_ pts: Int32) -> API.Update) throws -> (pts: Int32, update: API.Update) {
        channel.pts += ptsCount
        WriteTally.assigned(ptsCount, channel: true)
        channel.lastEventDate = max(channel.lastEventDate, date)
        let update = make(channel.pts)
        try tx.appendChannelEvent(StoredEvent(pts: channel.pts, ptsCount: ptsCount, date: date, update: update.serialized()),
                                  channel: channel.id)
        return (channel.pts, update)
    }

    /// A new message (a post or a service message): `make` receives its id; it is stored and logged as
    /// `updateNewChannelMessage`.
    mutating func logNewMessage(date: Int32, _ make: (_ id: Int32) -> ChannelMessage) throws -> (message: ChannelMessage, pts: Int32,
                                                                                               update: API.Update) {
        let message = make(takeMessageID())
        try tx.upsert(message)
        let (pts, update) = try record(ptsCount: 1, date: date) { pts in
            .updateNewChannelMessage(.init(message: ChannelRendering.logged(message), pts: pts, ptsCount: 1))
        }
        return (message, pts, update)
    }

    /// Writes the advanced counters (call once, after the last `record`).
    func save() throws {
        try tx.upsert(channel)
    }
}
