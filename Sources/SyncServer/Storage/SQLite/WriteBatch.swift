import GRDB

/// What the SQLite writer keeps for the duration of one group-commit transaction (`GroupCommit`).
///
/// - Prepared statements of the send path, looked up by a small key instead of hashing their SQL per call.
/// - The batch's pending writes (`PendingWrites`, the same buffer and undo journal PostgreSQL's batches use): box
///   states (a batch of sends moves the same few users' pts hundreds of times), dialog raises and sends wait there;
///   raises are written before any other statement on dialogs (`flushDialogs`), everything when the batch ends
///   (`finish`), so SQL always sees them; events and messages are written at once (a statement is a function call).
/// - Sends looked up through the senders' `RecentSends` windows, handed to them once the batch committed.
/// - Users read from the database, for `UserCache` once the transaction committed (rows inserted in the batch are
///   left out: the write that inserted one may still be undone).
///
/// Lives on the writer's queue only; never shared between transactions.
final class WriteBatch {
    let db: Database
    /// Indexed by `WriterStatement.rawValue`.
    private var statements = [RawStatement?](repeating: nil, count: WriterStatement.allCases.count)
    private var writes = PendingWrites()
    private var readUsers: [UserRecord] = []
    private var insertedUsers: Set<Int64> = []
    private var changedUsers: Set<Int64> = []
    private let recentSends: RecentSends
    /// The committed windows of the senders this batch looked at (from `recentSends` or loaded from the log).
    private var sendWindows: [Int64: SendWindow] = [:]

    init(db: Database, recentSends: RecentSends) {
        self.db = db
        self.recentSends = recentSends
    }

    func statement(_ key: WriterStatement) throws -> RawStatement {
        if let statement = statements[key.rawValue] { return statement }
        let statement = try RawStatement(db, sql: key.sql)
        statements[key.rawValue] = statement
        return statement
    }

    // MARK: box states

    /// The state this transaction read or gave `user`, nil when it has not seen it yet.
    func state(user: Int64) -> UserState? {
        writes.locked[user]
    }

    /// A state read from the table: later reads in the batch take it from here.
    func read(_ state: UserState, user: Int64) {
        writes.lock(state, user: user)
    }

    func setState(_ state: UserState, user: Int64) {
        writes.setState(state, user: user)
    }

    // MARK: dialogs

    /// `SQLiteTransaction.raiseDialog`, kept until the next flush; raises of one dialog merge.
    func raiseDialog(owner: Int64, peer: PeerRef, topMessage: Int32, date: Int32, unread: Int32, readInboxTo: Int32) {
        writes.raiseDialog(DialogKey(owner: owner, peer: peer),
                           DialogRaise(topMessage: topMessage, date: date, unread: unread, readInboxTo: readInboxTo))
    }

    // MARK: idempotent sends

    func sent(user: Int64, randomID: Int64) throws -> SentRecord? {
        if let record = writes.sends[SendKey(user: user, randomID: randomID)] { return record }
        return try sendWindow(user: user)[randomID]
    }

    /// A send to record in `sent_log` (written with the next flush).
    func recordSent(_ record: SentRecord, user: Int64, randomID: Int64) throws {
        _ = try sendWindow(user: user)   // the window is read before this batch's sends join it
        writes.recordSent(record, user: user, randomID: randomID)
    }

    private func sendWindow(user: Int64) throws -> SendWindow {
        if let window = sendWindows[user] { return window }
        let window = try recentSends.window(user: user) ?? SQLiteTransaction.loadSendWindow(user: user, statement: statement(.sendWindow))
        sendWindows[user] = window
        return window
    }

    /// The windows with this batch's sends added, for `RecentSends.commit` once the batch committed.
    var sendWindowsToCommit: [Int64: SendWindow] {
        var windows = sendWindows
        for (key, record) in writes.sendsInOrder { windows[key.user, default: SendWindow()].add(record, randomID: key.randomID) }
        return windows
    }

    // MARK: flush, undo and end

    /// Writes the pending dialog raises, before any other statement on dialogs (a read mark or an edit between two
    /// sends); the other pending rows wait for the end, where each box state is written once per batch.
    func flushDialogs() throws {
        let raises = writes.pending.dialogs
        guard !raises.isEmpty else { return }
        for (key, raise) in raises {
            try statement(.raiseDialog).execute { SQLiteTransaction.bind(raise, key: key, to: &$0) }
        }
        writes.flushedDialogs()
    }

    /// Writes the pending rows (SQLite's half of `PendingWrites`: one prepared statement per row). Events and messages
    /// never wait here: `SQLiteTransaction` writes them at once.
    func flush() throws {
        let rows = writes.pending
        guard !rows.isEmpty else { return }
        for (user, state) in rows.states {
            try statement(.setState).execute { row in row.add(user); row.add(record: state) }
        }
        for (key, raise) in rows.dialogs {
            try statement(.raiseDialog).execute { SQLiteTransaction.bind(raise, key: key, to: &$0) }
        }
        for (key, record) in rows.sends {
            try statement(.recordSent).execute { row in row.add(key.user); row.add(key.randomID); row.add(record: record) }
        }
        writes.flushed()
    }

    /// A point to come back to if the next write throws.
    var mark: Int { writes.mark }

    /// Forgets the changes made since `mark` (flushed rows become pending again: their savepoint took them back).
    func undo(to mark: Int) {
        writes.undo(to: mark)
    }

    /// Writes what is still pending (call once, after the last write of the batch, inside the transaction).
    func finish() throws {
        try flush()
    }

    // MARK: users for the cache

    func read(_ user: UserRecord) { readUsers.append(user) }
    func inserted(_ id: Int64) { insertedUsers.insert(id) }

    /// A profile change: the cache forgets the row once the batch committed.
    func updated(_ id: Int64) {
        insertedUsers.insert(id)
        changedUsers.insert(id)
    }

    func changed(_ id: Int64) -> Bool { changedUsers.contains(id) }

    /// Users to remember once the transaction committed.
    var usersToCache: [UserRecord] { readUsers.filter { !insertedUsers.contains($0.id) } }
    /// Users the cache must forget once the transaction committed.
    var usersToForget: [Int64] { changedUsers.sorted() }
}

/// The writer's hot statements (`WriteBatch.statement`), numbered so a batch finds them without hashing their SQL.
/// Their columns are the records' `RecordColumns` lists, in the order the records' codecs read them.
enum WriterStatement: Int, CaseIterable {
    case state, setState, appendEvent, upsertMessage, raiseDialog, sendWindow, recordSent

    var sql: String {
        switch self {
        case .state: BoxSQL.State.sqliteText
        case .setState: "INSERT OR REPLACE INTO user_states (user_id, \(UserStateColumn.list)) VALUES (?, \(UserStateColumn.placeholders))"
        case .appendEvent: BoxSQL.AppendEvent.sqliteText
        case .upsertMessage: "INSERT OR REPLACE INTO messages (\(MessageColumn.list)) VALUES (\(MessageColumn.placeholders))"
        case .raiseDialog: """
            INSERT INTO dialogs (owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id, read_outbox_max_id,
                unread_count) VALUES (?, ?, ?, ?, ?, ?, 0, ?)
            ON CONFLICT (owner, peer_type, peer_id) DO UPDATE SET
                top_message = max(top_message, excluded.top_message), top_date = max(top_date, excluded.top_date),
                read_inbox_max_id = max(read_inbox_max_id, excluded.read_inbox_max_id),
                unread_count = unread_count + excluded.unread_count
            """
        case .sendWindow: """
            SELECT random_id, \(SentColumn.list) FROM sent_log INDEXED BY sent_log_by_user WHERE user_id = ?
            ORDER BY id DESC LIMIT \(RecentSends.window)
            """
        case .recordSent: "INSERT INTO sent_log (user_id, random_id, \(SentColumn.list)) VALUES (?, ?, \(SentColumn.placeholders))"
        }
    }
}
