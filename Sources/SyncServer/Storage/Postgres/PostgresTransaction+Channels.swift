/// What the PostgreSQL transaction does for channels beyond the statements written once (`ChannelStatements.swift`):
/// a logged event is announced with the COMMIT.
extension PostgresTransaction {
    static let channelColumns = ChannelColumn.list
    static let channelMessageColumns = ChannelMessageColumn.list

    func appendChannelEvent(_ event: StoredEvent, channel: Int64) throws {
        try execute(ChannelSQL.AppendEvent.self, channel, RecordParameters(event))
        memory.log(CommittedEvent(box: .channel(channel), pts: event.pts, ptsCount: event.ptsCount))
    }
}
