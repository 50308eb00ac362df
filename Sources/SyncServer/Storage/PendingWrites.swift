/// The one write-behind buffer of both backends' write batches (SQLite's `WriteBatch`, PostgreSQL's
/// `PostgresTransaction`): rows a batch has written but not yet sent to the database, what it knows of the box
/// states it holds, and its sends, every change journaled so that a write that throws is taken back (`undo(to:)`) as
/// its savepoint, or nothing at all when it never reached the database, takes back its rows.
///
/// Why rows wait: PostgreSQL pays a round trip per statement (about 0.2 ms here; a private send made fourteen, one after
/// another, while its boxes stayed locked), so there every pending row goes out as one multi-row statement per table
/// (`PostgresTransaction.flush`) before any other statement and before COMMIT. SQLite pays a function call per
/// statement, so it defers only rows whose last value wins — box states a batch of sends moves hundreds of times,
/// dialog raises — and its sends, and writes events and messages at once. Either way SQL always sees every pending
/// row before another statement runs (each backend's dialect file flushes first), and a flush is itself journaled:
/// taking the write back, with the savepoint that wrote the rows, makes them pending again.
///
/// Boxes taken from PostgreSQL's per-process cache instead of a locking read (`BoxStateCache`) wait in
/// `pending.assumed`, and the statement that writes the pending rows checks them first.
struct PendingWrites {
    /// Box states this transaction read (PostgreSQL: `FOR UPDATE` or through `lockBoxes`, locked until COMMIT), assumed
    /// from the cache (locked from the statement that checks it on), or wrote: what the batch reads them as.
    var locked: [Int64: UserState] { lockedRows.values }
    private(set) var pending = PendingRows()
    /// Sends recorded in this transaction, flushed or not (a retry within one batch is found here).
    var sends: [SendKey: SentRecord] { sendRows.values }
    /// The batch's sends in the order they were made (SQLite's windows of recent sends keep the newest).
    var sendsInOrder: [(key: SendKey, record: SentRecord)] {
        sendOrder.elements.compactMap { key in sendRows[key].map { (key, $0) } }
    }
    /// The events logged, announced to the other processes with the COMMIT (PostgreSQL).
    var logged: [CommittedEvent] { loggedRows.elements }

    private var lockedRows = JournaledMap<Int64, UserState>()
    private var sendRows = JournaledMap<SendKey, SentRecord>()
    private var loggedRows = JournaledList<CommittedEvent>()
    private var sendOrder = JournaledList<SendKey>()
    private var journal = UndoJournal<PendingWrites>()

    struct MessageKey: Hashable {
        let owner: Int64
        let id: Int32
    }

    /// Rows not written yet.
    struct PendingRows {
        /// Cached states this batch relies on, checked (and locked) by the statement that writes the rows.
        var assumed: [Int64: UserState] { assumedRows.values }
        var events: [(user: Int64, event: StoredEvent)] { eventRows.elements }
        var states: [Int64: UserState] { stateRows.values }
        var messages: [MessageKey: StoredMessage] { messageRows.values }
        var dialogs: [DialogKey: DialogRaise] { dialogRows.values }
        var sends: [(key: SendKey, record: SentRecord)] { sendRows.elements }

        fileprivate var assumedRows = JournaledMap<Int64, UserState>()
        fileprivate var eventRows = JournaledList<(user: Int64, event: StoredEvent)>()
        fileprivate var stateRows = JournaledMap<Int64, UserState>()
        fileprivate var messageRows = JournaledMap<MessageKey, StoredMessage>()
        fileprivate var dialogRows = JournaledMap<DialogKey, DialogRaise>()
        fileprivate var sendRows = JournaledList<(key: SendKey, record: SentRecord)>()

        var isEmpty: Bool {
            assumedRows.isEmpty && eventRows.isEmpty && stateRows.isEmpty && messageRows.isEmpty && dialogRows.isEmpty
                && sendRows.isEmpty
        }
    }

    // MARK: changes

    mutating func lock(_ state: UserState, user: Int64) {
        lockedRows.set(state, for: user)
        journal.record { $0.lockedRows.undoLast() }
    }

    /// A box state taken from the cache: used as if locked, checked when the rows are written.
    mutating func assume(_ state: UserState, user: Int64) {
        lock(state, user: user)
        pending.assumedRows.set(state, for: user)
        journal.record { $0.pending.assumedRows.undoLast() }
    }

    mutating func setState(_ state: UserState, user: Int64) {
        lock(state, user: user)
        pending.stateRows.set(state, for: user)
        journal.record { $0.pending.stateRows.undoLast() }
    }

    mutating func append(_ event: StoredEvent, user: Int64) {
        pending.eventRows.append((user, event))
        journal.record { $0.pending.eventRows.undoLast() }
        log(CommittedEvent(box: .user(user), pts: event.pts, ptsCount: event.ptsCount))
    }

    /// An event logged by a statement of its own (a channel's), to announce.
    mutating func log(_ event: CommittedEvent) {
        loggedRows.append(event)
        journal.record { $0.loggedRows.undoLast() }
    }

    mutating func upsert(_ message: StoredMessage) {
        pending.messageRows.set(message, for: MessageKey(owner: message.owner, id: message.id))
        journal.record { $0.pending.messageRows.undoLast() }
    }

    /// A pending message of this batch (it is not in the table yet).
    func pendingMessage(owner: Int64, id: Int32) -> StoredMessage? {
        pending.messageRows[MessageKey(owner: owner, id: id)]
    }

    mutating func raiseDialog(_ key: DialogKey, _ raise: DialogRaise) {
        pending.dialogRows.set(pending.dialogRows[key].map { $0.merged(with: raise) } ?? raise, for: key)
        journal.record { $0.pending.dialogRows.undoLast() }
    }

    mutating func recordSent(_ record: SentRecord, user: Int64, randomID: Int64) {
        let key = SendKey(user: user, randomID: randomID)
        sendRows.set(record, for: key)
        sendOrder.append(key)
        pending.sendRows.append((key, record))
        journal.record {
            $0.sendRows.undoLast()
            $0.sendOrder.undoLast()
            $0.pending.sendRows.undoLast()
        }
    }

    /// The pending dialog raises alone were written (SQLite, before a statement on dialogs: the other pending rows
    /// wait for the end, where each is written once).
    mutating func flushedDialogs() {
        let written = pending.dialogRows
        pending.dialogRows = JournaledMap()
        journal.record { [written] in $0.pending.dialogRows = written }
    }

    /// The pending rows were written: they stay in the journal until the batch commits (taking the write back, with
    /// the savepoint that wrote them, makes them pending again).
    mutating func flushed() {
        let written = pending
        pending = PendingRows()
        journal.record { [written] in $0.pending = written }
    }

    // MARK: undo

    /// A point to come back to if the next write throws.
    var mark: Int { journal.mark }

    /// Takes back every change made since `mark`.
    mutating func undo(to mark: Int) {
        UndoJournal.undo(&self, journal: \.journal, to: mark)
    }
}
