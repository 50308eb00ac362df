import NIOCore
import PostgresNIO

/// One transaction's view of the PostgreSQL backend, the mirror of `SQLiteTransaction`. Every statement is
/// prepared once per connection (`PostgresSQL`). A write transaction serves a whole batch of writes
/// (`PostgresGroupCommit`): the send path's rows wait in `memory` and are written together (`flush`) before any
/// statement that could read them (`query`, `change`) and before COMMIT.
///
/// Counters stay exact when several processes write for the same user or channel at once: in a write transaction
/// a box's counters are read `FOR UPDATE` (the row stays locked until COMMIT, so the next writer reads what this one
/// wrote), `lockBoxes` takes several in ascending id order so two writers never wait for each other, and every
/// logged event's (box, pts) is a primary key, so a writer that slipped past the locks (a box whose row did not
/// exist yet) fails with a unique violation and its batch is run again (`PostgresGroupCommit`). A box whose state
/// this process cached (`BoxStateCache`) is not read: its state is assumed, and the statement that writes the
/// pending rows checks the assumption under lock before writing anything.
///
/// A write opens its transaction (BEGIN) at its first statement: a batch whose only statement writes its rows runs
/// it alone, as a transaction of its own (`finish`).
final class PostgresTransaction: StorageWriter, @unchecked Sendable {
    /// The connection; nil for a run in memory (`inMemory`).
    private let connection: PostgresSession?
    let isWrite: Bool
    let users: UserCache
    /// Whether `sent` asks the database after the batch's own sends. A batch's first run does not: the unique index
    /// on `sent_log (user_id, random_id)` turns a retry it missed into a unique violation, and the batch is run again
    /// with lookups (`PostgresGroupCommit`); a retry of a send is rare, a lookup per send is not.
    var looksUpSends: Bool
    /// Locked box states, rows waiting to be written, and what to announce (writes only).
    var memory = PendingWrites()
    /// Statements that changed rows (pending rows written, or any other write): a write that throws after this
    /// moved cannot be taken back in memory alone.
    var databaseChanges = 0
    /// The error of a statement that failed: PostgreSQL aborted the transaction, whatever the caller made of it.
    var databaseFailure: (any Error)?
    /// Users inserted or changed by this transaction: not cached until committed.
    var insertedUsers: Set<Int64> = []
    /// The cache's generation when this transaction began (`UserCache.remember(_:seenAt:)`).
    let userGeneration: UInt64
    /// Box states to use instead of locking reads (writes only; nil when every box must be read under lock).
    let boxes: BoxStateCache?
    /// Whether a write opened its transaction (BEGIN). It does so at its first statement, not before: a batch whose
    /// only statement is the one writing its rows runs it alone (`finish`).
    private(set) var began = false
    /// A run without a connection, which must not block on a statement (a batch on `PostgresGroupCommit`'s fast path,
    /// a `readLatest` tried in memory first): every statement fails with `NeedsDatabase` instead, and the run is
    /// repeated the usual way, on a thread of the pool. Having no connection, it takes none from the pool.
    var inMemory: Bool { connection == nil }

    /// `session: nil` runs in memory.
    init(session: PostgresSession?, isWrite: Bool, users: UserCache, boxes: BoxStateCache? = nil, looksUpSends: Bool = true) {
        connection = session
        self.isWrite = isWrite
        self.users = users
        userGeneration = users.generation
        self.boxes = isWrite ? boxes : nil
        self.looksUpSends = looksUpSends
    }

    /// The connection statements run on (a run in memory has none: `recordingFailure` refuses its statements first).
    var session: PostgresSession {
        get throws {
            guard let connection else { throw NeedsDatabase() }
            return connection
        }
    }

    /// Opens a write's transaction if it is not open yet.
    func begin() throws {
        guard isWrite, !began else { return }
        try recordingFailure { try session.run("BEGIN") }
        began = true
    }

    /// Runs a statement inside the transaction (a write opens it first).
    func statement<T>(_ run: () throws -> T) throws -> T {
        try begin()
        return try recordingFailure(run)
    }

    /// The events this transaction logged, announced to the other processes with its COMMIT.
    var logged: [CommittedEvent] { memory.logged }

    /// Runs a statement that reads, after the pending rows are written (so it sees them).
    @discardableResult
    func query<Text: PostgresSQL, each Value: SQLValue>(_ text: Text.Type, _ values: repeat each Value) throws -> [PostgresRow] {
        try flush()
        return try statement { try session.rows(text, repeat each values) }
    }

    /// Runs a statement that changes rows, after the pending rows are written.
    @discardableResult
    func change<Text: PostgresSQL, each Value: SQLValue>(_ text: Text.Type, _ values: repeat each Value) throws -> [PostgresRow] {
        try flush()
        databaseChanges += 1
        return try statement { try session.rows(text, repeat each values) }
    }

    /// A statement was needed by a run `inMemory`.
    struct NeedsDatabase: Error {}

    func recordingFailure<T>(_ statement: () throws -> T) throws -> T {
        if inMemory {
            databaseFailure = NeedsDatabase()
            throw NeedsDatabase()
        }
        do {
            return try statement()
        } catch {
            databaseFailure = error
            throw error
        }
    }

    // MARK: users and authorizations

    /// Delivered with the COMMIT, to every process (`CommitAnnouncement`: a logout, a profile change).
    enum AnnounceCommit: PostgresSQL { static let sql = "SELECT pg_notify('\(CommitAnnouncement.channel)', $1)" }

    static let userColumns = UserColumn.list

    /// Users change only by a profile change, which every process's cache forgets (`UserCache`). No pending row is
    /// a user, so nothing is flushed first, and no transaction needs opening: a user this one inserted or changed was
    /// written by a statement that opened it.
    func user(id: Int64) throws -> UserRecord? {
        if !insertedUsers.contains(id), let cached = users.user(id: id) { return cached }
        let user = try recordingFailure { try session.rows(Portable<UserSQL.ByID>.self, id) }.first.map { try $0.record(UserRecord.self) }
        if let user, !insertedUsers.contains(id) { users.remember([user], seenAt: userGeneration) }
        return user
    }

    func insert(_ user: UserRecord) throws {
        insertedUsers.insert(user.id)
        try execute(UserSQL.Insert.self, RecordParameters(user))
    }

    func bind(authKeyID: UInt64, to user: Int64?) throws {
        if let user {
            try execute(UserSQL.BindKey.self, Int64(bitPattern: authKeyID), user)
        } else {
            try execute(UserSQL.UnbindKey.self, Int64(bitPattern: authKeyID))
            try change(AnnounceCommit.self, CommitAnnouncement.loggedOut(authKeyID))
        }
    }

    // MARK: box state and update log

    /// Creates missing rows and locks them all in ascending id order: one statement, so one round trip.
    enum LockBoxes: PostgresSQL {
        static let sql = """
            INSERT INTO user_states (user_id, pts, qts, seq, date, next_message_id)
                SELECT id, 0, 0, 0, 0, 1 FROM unnest($1::bigint[]) AS id ORDER BY id
            ON CONFLICT (user_id) DO UPDATE SET pts = user_states.pts
            RETURNING user_id, \(stateColumns)
            """
    }
    /// Locks the existing rows of these boxes in ascending id order (creating none: the ids come from requests).
    enum LockExistingBoxes: PostgresSQL {
        static let sql = "SELECT user_id, \(stateColumns) FROM user_states WHERE user_id = ANY($1) ORDER BY user_id FOR UPDATE"
    }

    /// Several logs in one statement: one index range scan per (user, after, upTo). `LATERAL` keeps it so: as a plain
    /// join, the planner guessed the unnest's size and read the whole table with a hash join.
    enum EventsInRanges: PostgresSQL {
        static let sql = """
            SELECT r.user_id, e.*
            FROM unnest($1::bigint[], $2::integer[], $3::integer[]) AS r (user_id, after, up_to)
            CROSS JOIN LATERAL (
                SELECT \(EventColumn.list) FROM user_events
                WHERE user_id = r.user_id AND pts > r.after AND pts <= r.up_to ORDER BY pts
            ) AS e
            """
    }

    static let stateColumns = UserStateColumn.list

    /// A write takes a box it has not locked yet from the cache (checked when its rows are written) or reads it
    /// `FOR UPDATE`. No pending row can change the answer (a box with a pending state is locked already), so nothing
    /// is flushed first.
    func state(user: Int64) throws -> UserState {
        if let locked = memory.locked[user] { return locked }
        guard isWrite else { return try recordingFailure { try session.rows(Portable<BoxSQL.State>.self, user) }.first.map { try $0.record(UserState.self) } ?? UserState() }
        if let cached = boxes?.state(of: user) {
            memory.assume(cached, user: user)
            return cached
        }
        let rows = try statement { try session.rows(Portable<BoxSQL.StateForUpdate>.self, user) }
        let state = try rows.first.map { try $0.record(UserState.self) } ?? UserState()
        if !rows.isEmpty { memory.lock(state, user: user) }
        return state
    }

    /// Not counted as a change: the rows it may insert are zero states, the same as no row, and stay harmless when
    /// the write that locked them throws. Boxes locked already (every box with a pending state) are skipped.
    func lockBoxes(users: [Int64]) throws {
        guard isWrite else { return }
        let ids = assumeCached(Set(users))
        guard !ids.isEmpty else { return }
        try remember(lockedRows: statement { try session.rows(LockBoxes.self, ids) })
    }

    /// Locks, at the start of a batch, the boxes its writes said they will lock (`ServerStorage.write(locking:_:)`):
    /// one statement, one order for the whole batch, so two processes' batches queue instead of deadlocking. A box
    /// without a row yet is left to the write's own `lockBoxes`.
    func lockBoxesAhead(_ users: Set<Int64>) throws {
        let ids = assumeCached(users)
        guard !ids.isEmpty else { return }
        try remember(lockedRows: statement { try session.rows(LockExistingBoxes.self, ids) })
    }

    /// Takes the cached ones of these boxes (not locked yet) as assumed; returns the others, in ascending order.
    private func assumeCached(_ users: Set<Int64>) -> [Int64] {
        users.filter { memory.locked[$0] == nil }.sorted().filter { user in
            guard let cached = boxes?.state(of: user) else { return true }
            memory.assume(cached, user: user)
            return false
        }
    }

    /// Keeps the states of rows a locking statement returned (`user_id` first, then `stateColumns`).
    private func remember(lockedRows rows: [PostgresRow]) throws {
        for row in rows {
            let cells = PostgresRecordCells(row)
            memory.lock(try cells.record(UserState.self, after: 1), user: try cells.int64(at: 0))
        }
    }

    func setState(_ state: UserState, user: Int64) throws {
        memory.setState(state, user: user)
    }

    func events(in ranges: [LogRange]) throws -> [Int64: [StoredEvent]] {
        guard let read = Self.eventsStatement(ranges) else { return [:] }
        try flush()
        return try Self.logs(from: statement { try session.rows(read) })
    }

    /// The statement reading these ranges' events; nil when they are all empty.
    static func eventsStatement(_ ranges: [LogRange]) -> Prepared<EventsInRanges>? {
        let ranges = ranges.filter { $0.upTo > $0.after }
        guard !ranges.isEmpty else { return nil }
        return Prepared<EventsInRanges>(ranges.map(\.user), ranges.map(\.after), ranges.map(\.upTo))
    }

    /// `EventsInRanges`' rows, by user.
    static func logs(from rows: [PostgresRow]) throws -> [Int64: [StoredEvent]] {
        var events: [Int64: [StoredEvent]] = [:]
        for row in rows {
            let cells = PostgresRecordCells(row)
            events[try cells.int64(at: 0), default: []].append(try cells.record(StoredEvent.self, after: 1))
        }
        return events
    }

    func append(_ event: StoredEvent, user: Int64) throws {
        memory.append(event, user: user)
    }

    // MARK: idempotent sends

    enum SentByRandomID: PostgresSQL {
        static let sql = """
            SELECT \(SentColumn.list) FROM sent_log WHERE user_id = $1 AND random_id = $2
            """
    }
    /// Every earlier send is found (SQLite keeps a window of each sender's latest sends): this batch's in memory, the
    /// log's by the unique index, at once or when the batch is run again (`looksUpSends`). Pending rows of other
    /// tables cannot change the answer, so nothing is flushed first.
    func sent(user: Int64, randomID: Int64) throws -> SentRecord? {
        if let record = memory.sends[SendKey(user: user, randomID: randomID)] { return record }
        guard looksUpSends else { return nil }
        guard let row = try recordingFailure({ try session.rows(SentByRandomID.self, user, randomID) }).first else { return nil }
        return try row.record(SentRecord.self)
    }

    func recordSent(_ record: SentRecord, user: Int64, randomID: Int64) throws {
        memory.recordSent(record, user: user, randomID: randomID)
    }
}

/// An event a committed transaction logged: which box, and the pts range it took (`pts - ptsCount`, `pts`].
public struct CommittedEvent: Sendable, Equatable {
    public let box: PeerRef
    public let pts: Int32
    public let ptsCount: Int32
    /// An event of the user's seq log: `pts` and `ptsCount` count its seq.
    public var sequenced = false
}
