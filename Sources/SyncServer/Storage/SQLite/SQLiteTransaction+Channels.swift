/// What the SQLite transaction writes of channels beyond the statements written once (`ChannelStatements.swift`).
extension SQLiteTransaction {
    static let channelColumns = ChannelColumn.list
    static let channelMessageColumns = ChannelMessageColumn.list

    func appendChannelEvent(_ event: StoredEvent, channel: Int64) throws {
        try execute(ChannelSQL.AppendEvent.self, channel, RecordParameters(event))
    }
}
