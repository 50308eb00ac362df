/// Profile changes and the seq log: what the SQLite transaction does beyond the statements written once.
extension SQLiteTransaction {
    func update(_ user: UserRecord) throws {
        batch?.updated(user.id)
        try execute(UserSQL.Update.self, RecordParameters(user), user.id)
    }

    func appendSeqEvent(_ event: StoredSeqEvent, user: Int64) throws {
        try execute(BoxSQL.AppendSeqEvent.self, user, RecordParameters(event))
    }
}
