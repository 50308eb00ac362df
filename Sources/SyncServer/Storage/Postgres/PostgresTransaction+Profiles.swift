/// Profile changes and the seq log: what the PostgreSQL transaction does beyond the statements written once.
extension PostgresTransaction {
    /// This process's cache forgets the row at once (a read later in this transaction sees the new row), and every
    /// process's, this one's again included, when the announcement arrives after the COMMIT.
    func update(_ user: UserRecord) throws {
        insertedUsers.insert(user.id)
        users.forget([user.id])
        try execute(UserSQL.Update.self, RecordParameters(user), user.id)
        try change(AnnounceCommit.self, CommitAnnouncement.profileChanged(user.id))
    }

    /// Every other process learns the status from the announcement after the COMMIT (`CrossProcessPush`).
    func setUserStatus(_ status: StoredUserStatus, user: Int64) throws {
        try writeUserStatus(status, user: user)
        try change(AnnounceCommit.self, CommitAnnouncement.statusChanged(user, status))
    }

    func appendSeqEvent(_ event: StoredSeqEvent, user: Int64) throws {
        try execute(BoxSQL.AppendSeqEvent.self, user, RecordParameters(event))
        memory.log(CommittedEvent(box: .user(user), pts: event.seq, ptsCount: 1, sequenced: true))
    }
}
