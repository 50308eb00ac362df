import NIOCore

/// What a PostgreSQL write batch (`PostgresGroupCommit`) keeps in memory between statements.
///
/// Why: a statement is a round trip (about 0.2 ms here), and a private send made fourteen of them, one after another,
/// while its boxes stayed locked. Now the rows of the send path (events, box states, messages, dialog raises, sends)
/// wait in `pending` and go out as one multi-row statement per table (`PostgresTransaction.flush`) before any other
/// statement and before COMMIT, so SQL always sees them; the boxes a batch locked are read once (`locked`).
///
/// Boxes taken from the process's cache instead of a locking read (`BoxStateCache`) wait in `pending.assumed`, and the
/// statement that writes the pending rows checks them first.
///
/// Every change is journaled, so a write that throws is taken back (`undo(to:)`) as its savepoint, or nothing at all
/// when it never reached the database, takes back its rows.
struct PostgresBatchMemory {
    /// Box states read `FOR UPDATE` or through `lockBoxes`, assumed from the cache, or written, by this transaction:
    /// locked until COMMIT (an assumed one from the statement that checks it on).
    private(set) var locked: [Int64: UserState] = [:]
    private(set) var pending = PendingRows()
    /// Sends recorded in this transaction, flushed or not (a retry within one batch is found here).
    private(set) var sends: [SendKey: SentRecord] = [:]
    /// The events logged, announced to the other processes with the COMMIT.
    private(set) var logged: [CommittedEvent] = []
    private var journal: [Change] = []

    struct MessageKey: Hashable {
        let owner: Int64
        let id: Int32
    }

    struct DialogKey: Hashable {
        let owner: Int64
        let peer: PeerRef
    }

    struct SendKey: Hashable {
        let user: Int64
        let randomID: Int64
    }

    /// A dialog raise as `raiseDialog` asks for it; raises of one dialog merge (maxima, and unread counts added).
    struct DialogRaise {
        var topMessage: Int32
        var date: Int32
        var unread: Int32
        var readInboxTo: Int32
    }

    /// Rows not written yet.
    struct PendingRows {
        /// Cached states this batch relies on, checked (and locked) by the statement that writes the rows.
        var assumed: [Int64: UserState] = [:]
        var events: [(user: Int64, event: StoredEvent)] = []
        var states: [Int64: UserState] = [:]
        var messages: [MessageKey: StoredMessage] = [:]
        var dialogs: [DialogKey: DialogRaise] = [:]
        var sends: [(key: SendKey, record: SentRecord)] = []

        var isEmpty: Bool { assumed.isEmpty && events.isEmpty && states.isEmpty && messages.isEmpty && dialogs.isEmpty && sends.isEmpty }
    }

    private enum Change {
        case locked(user: Int64, previous: UserState?)
        case assumed(user: Int64)
        case state(user: Int64, previous: UserState?)
        case event
        case message(MessageKey, previous: StoredMessage?)
        case dialog(DialogKey, previous: DialogRaise?)
        case send(SendKey)
        case logged
        /// `flushed` wrote these rows; taking it back (with the savepoint that wrote them) makes them pending again.
        case flushed(PendingRows)
    }

    // MARK: changes

    mutating func lock(_ state: UserState, user: Int64) {
        journal.append(.locked(user: user, previous: locked[user]))
        locked[user] = state
    }

    /// A box state taken from the cache: used as if locked, checked when the rows are written.
    mutating func assume(_ state: UserState, user: Int64) {
        lock(state, user: user)
        journal.append(.assumed(user: user))
        pending.assumed[user] = state
    }

    mutating func setState(_ state: UserState, user: Int64) {
        lock(state, user: user)
        journal.append(.state(user: user, previous: pending.states[user]))
        pending.states[user] = state
    }

    mutating func append(_ event: StoredEvent, user: Int64) {
        journal.append(.event)
        pending.events.append((user, event))
        log(CommittedEvent(box: .user(user), pts: event.pts, ptsCount: event.ptsCount))
    }

    /// An event logged by a statement of its own (a channel's), to announce.
    mutating func log(_ event: CommittedEvent) {
        journal.append(.logged)
        logged.append(event)
    }

    mutating func upsert(_ message: StoredMessage) {
        let key = MessageKey(owner: message.owner, id: message.id)
        journal.append(.message(key, previous: pending.messages[key]))
        pending.messages[key] = message
    }

    /// A pending message of this batch (it is not in the table yet).
    func pendingMessage(owner: Int64, id: Int32) -> StoredMessage? {
        pending.messages[MessageKey(owner: owner, id: id)]
    }

    mutating func raiseDialog(_ key: DialogKey, _ raise: DialogRaise) {
        let previous = pending.dialogs[key]
        journal.append(.dialog(key, previous: previous))
        guard var merged = previous else { return pending.dialogs[key] = raise }
        merged.topMessage = max(merged.topMessage, raise.topMessage)
        merged.date = max(merged.date, raise.date)
        merged.readInboxTo = max(merged.readInboxTo, raise.readInboxTo)
        merged.unread += raise.unread
        pending.dialogs[key] = merged
    }

    mutating func recordSent(_ record: SentRecord, user: Int64, randomID: Int64) {
        let key = SendKey(user: user, randomID: randomID)
        journal.append(.send(key))
        sends[key] = record
        pending.sends.append((key, record))
    }

    /// The pending rows were written: they stay in the journal until the batch commits.
    mutating func flushed() {
        journal.append(.flushed(pending))
        pending = PendingRows()
    }

    // MARK: undo

    /// A point to come back to if the next write throws.
    var mark: Int { journal.count }

    /// Takes back every change made since `mark`.
    mutating func undo(to mark: Int) {
        while journal.count > mark, let change = journal.popLast() {
            switch change {
            case let .locked(user, previous): locked[user] = previous
            case let .assumed(user): pending.assumed[user] = nil
            case let .state(user, previous): pending.states[user] = previous
            case .event: pending.events.removeLast()
            case let .message(key, previous): pending.messages[key] = previous
            case let .dialog(key, previous): pending.dialogs[key] = previous
            case let .send(key):
                sends[key] = nil
                pending.sends.removeLast()
            case .logged: logged.removeLast()
            case let .flushed(rows): pending = rows
            }
        }
    }
}
