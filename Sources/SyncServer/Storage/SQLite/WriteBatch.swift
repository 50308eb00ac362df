import GRDB

/// What the SQLite writer keeps for the duration of one group-commit transaction (`GroupCommit`).
///
/// - Prepared statements of the send path, looked up by a small key instead of hashing their SQL per call.
/// - Box states (`user_states`) changed in the transaction: a batch of sends moves the same few users' pts hundreds of
///   times, so the rows are written once, at the end (`finish`), and reads in between see the latest value.
/// - Dialogs raised by new messages (`raiseDialog`), likewise written once at the end; any other dialog statement
///   first writes them (`writeDialogs`), so SQL always sees every raise before it.
/// - Sends recorded for idempotency (`recordSent`), looked up through the senders' `RecentSends` windows and handed
///   to them once the batch committed.
/// - An undo journal: a write that throws is undone here as SQLite undoes its rows (`mark` / `undo(to:)`).
/// - Users read from the database, for `UserCache` once the transaction committed (rows inserted in the batch are
///   left out: the write that inserted one may still be undone).
///
/// Lives on the writer's queue only; never shared between transactions.
final class WriteBatch {
    let db: Database
    /// Indexed by `WriterStatement.rawValue`.
    private var statements = [RawStatement?](repeating: nil, count: WriterStatement.allCases.count)
    private var states = JournaledMap<Int64, UserState>()
    private var dialogs = JournaledMap<DialogKey, DialogRecord>()
    /// Changes to `states`, `dialogs` and the sends, to undo a failed write's changes.
    private var journal = UndoJournal<WriteBatch>()
    private var readUsers: [UserRecord] = []
    private var insertedUsers: Set<Int64> = []
    private let recentSends: RecentSends
    /// The committed windows of the senders this batch looked at (from `recentSends` or loaded from the log).
    private var sendWindows: [Int64: SendWindow] = [:]
    /// This batch's sends by sender and random_id, and their order.
    private var newSends = JournaledMap<SendKey, SentRecord>()
    private var newSendOrder = JournaledList<SendKey>()

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

    /// The state this transaction gave `user`, nil when it has not changed it.
    func state(user: Int64) -> UserState? {
        states[user]
    }

    func setState(_ state: UserState, user: Int64) {
        states.set(state, for: user)
        journal.record { $0.states.undoLast() }
    }

    // MARK: dialogs

    /// `SQLiteTransaction.raiseDialog` with the row kept in memory until the batch ends.
    func raiseDialog(owner: Int64, peer: PeerRef, topMessage: Int32, date: Int32, unread: Int32, readInboxTo: Int32) throws {
        let key = DialogKey(owner: owner, peer: peer)
        let row = try dialogs[key] ?? storedDialog(key) ?? DialogRecord(owner: owner, peer: peer)
        let raise = DialogRaise(topMessage: topMessage, date: date, unread: unread, readInboxTo: readInboxTo)
        dialogs.set(raise.applied(to: row), for: key)
        journal.record { $0.dialogs.undoLast() }
    }

    /// Writes the pending dialog rows; called before any other statement on `dialogs`.
    func writeDialogs() throws {
        guard !dialogs.isEmpty else { return }
        let statement = try statement(.upsertDialog)
        for row in dialogs.values.values { try statement.execute { SQLiteTransaction.bind(row, to: &$0) } }
        // Written: taking the write back (with its savepoint) makes them pending again.
        let written = dialogs
        dialogs = JournaledMap()
        journal.record { [written] in $0.dialogs = written }
    }

    private func storedDialog(_ key: DialogKey) throws -> DialogRecord? {
        try statement(.dialog).fetchOne({ row in
            row.add(key.owner)
            row.add(key.peer.typeCode)
            row.add(key.peer.id)
        }, SQLiteTransaction.dialog(from:))
    }

    // MARK: idempotent sends

    func sent(user: Int64, randomID: Int64) throws -> SentRecord? {
        if let record = newSends[SendKey(user: user, randomID: randomID)] { return record }
        return try sendWindow(user: user)[randomID]
    }

    /// Call after the send's row went into `sent_log`.
    func recordSent(_ record: SentRecord, user: Int64, randomID: Int64) throws {
        _ = try sendWindow(user: user)   // the window is read before this batch's sends join it
        let key = SendKey(user: user, randomID: randomID)
        newSends.set(record, for: key)
        newSendOrder.append(key)
        journal.record {
            $0.newSends.undoLast()
            $0.newSendOrder.undoLast()
        }
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
        for key in newSendOrder.elements {
            if let record = newSends[key] { windows[key.user, default: SendWindow()].add(record, randomID: key.randomID) }
        }
        return windows
    }

    // MARK: undo and end

    /// A point to come back to if the next write throws.
    var mark: Int { journal.mark }

    /// Forgets the state, dialog and send changes made since `mark`.
    func undo(to mark: Int) {
        var batch = self
        UndoJournal.undo(&batch, journal: \.journal, to: mark)
    }

    /// Writes the changed states and dialogs (call once, after the last write of the batch, inside the transaction).
    func finish() throws {
        try writeDialogs()
        let statement = try statement(.setState)
        for (user, state) in states.values {
            try statement.execute { SQLiteTransaction.bind(state, user: user, to: &$0) }
        }
    }

    // MARK: users for the cache

    func read(_ user: UserRecord) { readUsers.append(user) }
    func inserted(_ id: Int64) { insertedUsers.insert(id) }

    /// Users to remember once the transaction committed.
    var usersToCache: [UserRecord] { readUsers.filter { !insertedUsers.contains($0.id) } }
}

/// The writer's hot statements (`WriteBatch.statement`), numbered so a batch finds them without hashing their SQL.
/// Their columns are listed in the order `RawRow` reads them.
enum WriterStatement: Int, CaseIterable {
    case state, setState, appendEvent, upsertMessage, raiseDialog, dialog, upsertDialog, sendWindow, recordSent

    var sql: String {
        switch self {
        case .state: "SELECT pts, qts, seq, date, next_message_id FROM user_states WHERE user_id = ?"
        case .setState: "INSERT OR REPLACE INTO user_states (user_id, pts, qts, seq, date, next_message_id) VALUES (?, ?, ?, ?, ?, ?)"
        case .appendEvent: "INSERT INTO user_events (user_id, pts, pts_count, date, body) VALUES (?, ?, ?, ?, ?)"
        case .upsertMessage: """
            INSERT OR REPLACE INTO messages (owner, id, peer_type, peer_id, from_id, out, date, text, entities, edit_date,
                counterpart_id, action) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        case .raiseDialog: """
            INSERT INTO dialogs (owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id, read_outbox_max_id,
                unread_count) VALUES (?, ?, ?, ?, ?, ?, 0, ?)
            ON CONFLICT (owner, peer_type, peer_id) DO UPDATE SET
                top_message = max(top_message, excluded.top_message), top_date = max(top_date, excluded.top_date),
                read_inbox_max_id = max(read_inbox_max_id, excluded.read_inbox_max_id),
                unread_count = unread_count + excluded.unread_count
            """
        case .dialog: "SELECT \(SQLiteTransaction.dialogColumns) FROM dialogs WHERE owner = ? AND peer_type = ? AND peer_id = ?"
        case .upsertDialog: """
            INSERT OR REPLACE INTO dialogs (owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id,
                read_outbox_max_id, unread_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        case .sendWindow: """
            SELECT random_id, message_id, pts, date, channel_id FROM sent_log INDEXED BY sent_log_by_user WHERE user_id = ?
            ORDER BY id DESC LIMIT \(RecentSends.window)
            """
        case .recordSent: "INSERT INTO sent_log (user_id, random_id, message_id, pts, date, channel_id) VALUES (?, ?, ?, ?, ?, ?)"
        }
    }
}
