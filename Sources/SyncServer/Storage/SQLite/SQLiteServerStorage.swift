import Foundation
import GRDB

/// The embedded default backend: one SQLite file in the data directory, WAL mode (readers never wait for the
/// writer), `synchronous = FULL` because a committed write is acknowledged to clients and must survive power loss
/// as well as a `kill -9`. Tables are WITHOUT ROWID and clustered on the keys they are read by.
public final class SQLiteServerStorage: ServerStorage {
    private let pool: DatabasePool
    private let commits: GroupCommit
    private let checkpointer: WALCheckpointer
    private let users = UserCache()
    private let recentSends = RecentSends()

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Checkpoints run on a connection of their own (`WALCheckpointer`), not inside a sender's commit.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            // Group commit runs each write in a savepoint; their statement journals stay in memory instead of a
            // temporary file written page by page (profiling showed ~5 pwrite calls per send without this).
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // 64 MiB of page cache per connection instead of SQLite's 2 MiB: the hot ends of the logs and message
            // tables outgrow 2 MiB within seconds of sustained sends, and every miss is a pread in the writer.
            try db.execute(sql: "PRAGMA cache_size = -65536")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try pool.write { db in try SQLiteServerSchema.migrate(db) }
            commits = GroupCommit(pool: pool, users: users, recentSends: recentSends)
            checkpointer = try WALCheckpointer(path: path)
        } catch let error as ServerStorageError {
            throw error
        } catch {
            throw ServerStorageError.cannotOpen(path: path, reason: "\(error)")
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T {
        try await pool.read { [users] db in try body(SQLiteTransaction(db: db, users: users, userGeneration: users.generation)) }
    }

    /// Concurrent writes share commits (`GroupCommit`); each returns after the commit that made it durable.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T {
        let value = try await commits.write(body)
        checkpointer.wrote()
        return value
    }

    /// After the accepted writes and a running checkpoint end, the connections close (their file descriptors with
    /// them: a process that restarts servers, like the fault simulation, ran out of descriptors before). A read still
    /// running keeps the pool open (GRDB refuses to close it); that pool then closes when released.
    public func close() async {
        await commits.close()
        await checkpointer.finish()
        checkpointer.close()
        try? pool.close()
    }
}

/// One transaction's view of the SQLite backend. Rows are read by column index from explicit column lists
/// (`…Columns`): looking columns up by name cost a few percent of the server's time under load (GRDB compares names
/// case-insensitively).
struct SQLiteTransaction: StorageWriter {
    let db: Database
    /// Committed users; nil where no cache is wanted.
    var users: UserCache? = nil
    /// The cache's generation when this read began (`UserCache.remember(_:seenAt:)`).
    var userGeneration: UInt64? = nil
    /// In a group-commit write: the batch's statements and pending box states, and where users read from the
    /// database go until the batch commits (nil for read transactions, which see only committed rows and give
    /// users straight to the cache).
    var batch: WriteBatch? = nil

    /// A hot statement: the batch's (looked up by key) in a write, GRDB's statement cache otherwise.
    private func statement(_ key: WriterStatement) throws -> RawStatement {
        if let batch { return try batch.statement(key) }
        return try RawStatement(db, sql: key.sql)
    }

    // MARK: users and authorizations

    func user(id: Int64) throws -> UserRecord? {
        // A row this batch changed is in the cache as it was before the change until the batch commits.
        if batch?.changed(id) != true, let cached = users?.user(id: id) { return cached }
        let user = try row(UserSQL.ByID.self, id) { try $0.record(UserRecord.self) }
        if let user, let users {
            if let batch { batch.read(user) } else { users.remember([user], seenAt: userGeneration) }
        }
        return user
    }

    func insert(_ user: UserRecord) throws {
        batch?.inserted(user.id)
        try execute(UserSQL.Insert.self, RecordParameters(user))
    }

    func bind(authKeyID: UInt64, to user: Int64?) throws {
        if let user {
            try execute(UserSQL.BindKey.self, Int64(bitPattern: authKeyID), user)
        } else {
            try execute(UserSQL.UnbindKey.self, Int64(bitPattern: authKeyID))
        }
    }

    static let userColumns = UserColumn.list

    // MARK: box state and update log

    func state(user: Int64) throws -> UserState {
        if let known = batch?.state(user: user) { return known }
        let state = try statement(.state).fetchOne({ $0.add(user) }) { try $0.record(UserState.self) } ?? UserState()
        batch?.read(state, user: user)
        return state
    }

    /// In a write batch the row is written with the batch's next flush (`WriteBatch.flush`).
    func setState(_ state: UserState, user: Int64) throws {
        if let batch { return batch.setState(state, user: user) }
        try statement(.setState).execute { row in row.add(user); row.add(record: state) }
    }

    func append(_ event: StoredEvent, user: Int64) throws {
        try statement(.appendEvent).execute { row in row.add(user); row.add(record: event) }
    }

    // MARK: messages

    func upsert(_ message: StoredMessage) throws {
        try statement(.upsertMessage).execute { $0.add(record: message) }
    }

    static let messageColumns = MessageColumn.list

    // MARK: dialogs

    // In a write batch, raised dialogs wait in memory (`WriteBatch.raiseDialog`); every other dialog statement flushes
    // them first.

    /// Every send raises two dialogs: in a write batch in memory until its next flush, otherwise one UPSERT.
    func raiseDialog(owner: Int64, peer: PeerRef, topMessage: Int32, date: Int32, unread: Int32, readInboxTo: Int32) throws {
        if let batch {
            return batch.raiseDialog(owner: owner, peer: peer, topMessage: topMessage, date: date, unread: unread, readInboxTo: readInboxTo)
        }
        let raise = DialogRaise(topMessage: topMessage, date: date, unread: unread, readInboxTo: readInboxTo)
        try statement(.raiseDialog).execute { Self.bind(raise, key: DialogKey(owner: owner, peer: peer), to: &$0) }
    }

    /// The parameters of `WriterStatement.raiseDialog`, in its column order.
    static func bind(_ raise: DialogRaise, key: DialogKey, to row: inout Bindings) {
        row.add(key.owner)
        row.add(key.peer.typeCode)
        row.add(key.peer.id)
        row.add(raise.topMessage)
        row.add(raise.date)
        row.add(raise.readInboxTo)
        row.add(raise.unread)
    }

    static let dialogColumns = DialogColumn.list

    // MARK: idempotent sends

    func sent(user: Int64, randomID: Int64) throws -> SentRecord? {
        if let batch { return try batch.sent(user: user, randomID: randomID) }
        return try Self.loadSendWindow(user: user, statement: statement(.sendWindow))[randomID]
    }

    /// In a write batch the row goes into `sent_log` with the batch's next flush.
    func recordSent(_ record: SentRecord, user: Int64, randomID: Int64) throws {
        if let batch { return try batch.recordSent(record, user: user, randomID: randomID) }
        try statement(.recordSent).execute { row in row.add(user); row.add(randomID); row.add(record: record) }
    }

    /// A sender's last `RecentSends.window` sends from `sent_log` (`WriterStatement.sendWindow`).
    static func loadSendWindow(user: Int64, statement: RawStatement) throws -> SendWindow {
        let newestFirst = try statement.fetchAll({ $0.add(user) }) { row in
            (randomID: try row.int64(at: 0), record: try row.record(SentRecord.self, after: 1))
        }
        return SendWindow(oldestFirst: newestFirst.reversed())
    }
}
