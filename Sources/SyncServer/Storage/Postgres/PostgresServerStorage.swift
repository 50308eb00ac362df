import MTProto
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The scale-out backend: PostgreSQL holds the truth and several server processes share it (`synccore server
/// --postgres URL`). Transactions run on a pool of connections (`PostgresSessionPool`), every statement prepared
/// once per connection; writes are group-committed (`PostgresGroupCommit`). A write that lost a race with another
/// process (a unique violation on a logged pts, a serialization failure or a deadlock) is rolled back and run again,
/// so counters stay exact; any other failure reaches the handler, which answers 500 (the client retries).
///
/// A committed write announces the events it logged on the `synccore_commits` channel (`pg_notify` inside the
/// transaction, so the announcement leaves with the COMMIT and never without it): box, pts and pts_count only.
/// `commitFeed` hands every process the announcements (`CrossProcessPush` turns them into pushes).
public final class PostgresServerStorage: ServerStorage {
    /// Internal for tests, which look at where its connections live.
    let pool: PostgresSessionPool
    private let users = UserCache()
    /// Internal for tests, which look at what a process believes.
    let boxes: BoxStateCache
    private let feed: PostgresCommitFeed
    /// The log reads of the pushes for other processes' commits (`events(in:)`), on the feed's event loop, where
    /// `CrossProcessPush` runs.
    private let feedReads: LoopSession
    /// Internal for tests, which look at the paths batches took.
    let commits: PostgresGroupCommit
    private let logger: Logger
    private let gate = Mutex(Gate())
    /// Writes are run again at most this many times after losing a race.
    static let retries = 16

    private struct Gate {
        var closed = false
        var running = 0
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    /// Connects, creates or migrates the schema, and starts listening for other processes' commits.
    /// `connections` bounds the concurrent transactions (and the pool's threads). A statement unanswered for
    /// `statementDeadline` closes its connection and fails (PostgreSQL gone without closing its sockets); the
    /// listening connection is probed that often, so a partition cannot silence the other processes' commits.
    /// The connections, the group commit and the listening live on `eventLoopGroup`'s loops: pass the server's own
    /// group, so statements complete on the threads that serve the clients (`synccore server --event-loops`).
    public init(url: String, connections: Int = 16, statementDeadline: Duration = .seconds(30),
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, environment: SyncEnvironment = .live,
                logger: Logger) async throws {
        let configuration = try PostgresURL.configuration(url)
        self.logger = logger
        boxes = BoxStateCache(now: environment.uptime)
        pool = PostgresSessionPool(configuration: configuration, size: connections, deadline: TimeAmount(statementDeadline),
                                   group: eventLoopGroup, logger: logger)
        feed = PostgresCommitFeed(configuration: configuration, deadline: TimeAmount(statementDeadline), boxes: boxes, users: users,
                                  origin: environment.random.int64(in: 1...Int64.max), eventLoop: eventLoopGroup.next(),
                                  environment: environment, logger: logger)
        commits = PostgresGroupCommit(pool: pool, users: users, boxes: boxes, origin: feed.origin, eventLoop: eventLoopGroup.next())
        feedReads = LoopSession(pool: pool, eventLoop: feed.feed.eventLoop)
        do {
            try await pool.run { session in try session.withoutDeadline { try PostgresServerStorage.migrate(session) } }
        } catch {
            await pool.shutdown()
            switch PostgresFailure.typed(error) {
            case let failure as ServerStorageError where failure.isUnavailable: throw failure
            case let failure: throw ServerStorageError.cannotOpen(path: PostgresURL.redacted(url), reason: PostgresStartup.advice(for: failure, configuration))
            }
        }
        feed.start()
    }

    public var commitFeed: CommitFeed? { feed.feed }

    public var gauges: [StorageGauge] {
        pool.gauges + [StorageGauge(name: "synccore_postgres_listener_connected", value: feed.isListening ? 1 : 0)]
    }

    /// `REPEATABLE READ`: PostgreSQL's default (`READ COMMITTED`) gives each statement a snapshot of its own, so a
    /// difference could read a box state and then events committed after it. A read-only transaction at this level
    /// never fails with a serialization error.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T {
        try enter()
        defer { leave() }
        let users = self.users
        return try await pool.run { session in
            let tx = PostgresTransaction(session: session, isWrite: false, users: users)
            do {
                try session.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                let value = try body(tx)
                try session.run("COMMIT")
                return value
            } catch {
                if !session.connection.isClosed { try? session.run("ROLLBACK") }
                throw PostgresFailure.typed(error)
            }
        }
    }

    /// Each statement on its own (autocommit): no BEGIN and no COMMIT, two round trips fewer. The body first runs in
    /// memory on the calling task (what it reads may all be cached: users); only if it needs a statement does it run
    /// again on a thread of the pool.
    public func readLatest<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T {
        try enter()
        defer { leave() }
        let users = self.users
        let tx = PostgresTransaction(session: nil, isWrite: false, users: users)
        do {
            let value = try body(tx)
            // A body that swallowed the refusal did not read what it needed.
            if !(tx.databaseFailure is PostgresTransaction.NeedsDatabase) { return value }
        } catch where tx.databaseFailure is PostgresTransaction.NeedsDatabase {}
        return try await pool.run { session in
            do {
                return try body(PostgresTransaction(session: session, isWrite: false, users: users))
            } catch {
                throw PostgresFailure.typed(error)
            }
        }
    }

    /// One statement on a connection of the commit feed's event loop: its caller, the cross-process push, runs there
    /// and gets the rows without a thread switch.
    public func events(in ranges: [LogRange]) async throws -> [Int64: [StoredEvent]] {
        try enter()
        defer { leave() }
        guard let statement = PostgresTransaction.eventsStatement(ranges) else { return [:] }
        do {
            return try PostgresTransaction.logs(from: await feedReads.session().rows(statement))
        } catch {
            throw PostgresFailure.typed(error)
        }
    }

    /// Concurrent writes share transactions (`PostgresGroupCommit`); each returns after the COMMIT that made it
    /// durable.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T {
        try enter()
        defer { leave() }
        return try await commits.write(body)
    }

    public func write<T: Sendable>(locking boxes: [Int64], _ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T {
        try enter()
        defer { leave() }
        return try await commits.write(locking: boxes, body)
    }

    private func enter() throws {
        try gate.withLock { gate in
            guard !gate.closed else { throw ServerStorageError.closed }
            gate.running += 1
        }
    }

    private func leave() {
        let waiters = gate.withLock { gate -> [CheckedContinuation<Void, Never>] in
            gate.running -= 1
            guard gate.running == 0 else { return [] }
            defer { gate.drained.removeAll() }
            return gate.drained
        }
        for waiter in waiters { waiter.resume() }
    }

    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = gate.withLock { gate -> Bool in
                gate.closed = true
                guard gate.running > 0 else { return true }
                gate.drained.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
        await commits.close()   // its queue is empty by now; this closes the fast path's connection
        await feedReads.close()
        await feed.stop()
        await pool.shutdown()
    }

    // MARK: schema

    enum CreateVersionTable: PostgresSQL {
        static let sql = "CREATE TABLE IF NOT EXISTS synccore_schema (version integer NOT NULL)"
    }
    enum SchemaVersion: PostgresSQL { static let sql = "SELECT COALESCE(MAX(version), 0) FROM synccore_schema" }
    enum SetSchemaVersion: PostgresSQL { static let sql = "INSERT INTO synccore_schema (version) VALUES ($1)" }
    enum MigrationLock: PostgresSQL { static let sql = "SELECT pg_advisory_xact_lock($1)" }

    /// Brings the database to `ServerSchema.version` in one transaction, holding an advisory lock so processes that
    /// start together migrate once.
    static func migrate(_ session: PostgresSession, to target: Int = ServerSchema.version) throws {
        try session.run("BEGIN")
        do {
            try session.rows(MigrationLock.self, PostgresServerSchema.migrationLock)
            try session.rows(CreateVersionTable.self)
            let found = Int(try session.rows(SchemaVersion.self).first?.decode(Int32.self) ?? 0)
            guard found <= ServerSchema.version else {
                throw ServerStorageError.newerSchema(found: found, supported: ServerSchema.version)
            }
            let ownTarget = min(target, PostgresServerSchema.lastOwnVersion)
            for (index, step) in PostgresServerSchema.steps.enumerated() where found <= index && index < ownTarget {
                for statement in step { try session.run(statement) }
            }
            for step in ServerSchema.sharedSteps(from: found, to: target) {
                for statement in step { try session.run(statement.rendered(for: .postgres)) }
            }
            if found < target { try session.rows(SetSchemaVersion.self, Int32(target)) }
            try session.run("COMMIT")
        } catch {
            try? session.run("ROLLBACK")
            throw error
        }
    }
}

/// What PostgreSQL's errors mean to the storage.
enum PostgresFailure {
    /// SQLSTATEs of a write that raced another process's and may simply be run again: unique violation (a pts or
    /// message id taken meanwhile), serialization failure, deadlock detected.
    static let lostRace: Set<String> = ["23505", "40001", "40P01"]

    /// postgres-nio's errors print nothing useful by default (to keep queries out of logs); the server's logs and
    /// errors get the server's message and SQLSTATE, or the connection's failure, never the bound values.
    static func typed(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError else { return error }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState] ?? "?"
            let text = "\(message) (SQLSTATE \(state))"
            return unavailableStates.contains(state) ? ServerStorageError.unavailable(text) : ServerStorageError.database(text)
        }
        if let failure = PostgresURL.tlsFailure(error) { return ServerStorageError.database(failure) }
        let text = "\(error.code)\(error.underlying.map { ": \($0)" } ?? "")"
        return unreachable.contains(error.code) ? ServerStorageError.unavailable(text) : ServerStorageError.database(text)
    }

    /// SQLSTATEs of a server that is starting, stopping or full (cannot_connect_now, admin_shutdown, crash_shutdown,
    /// too_many_connections): waiting may mend them.
    static let unavailableStates: Set<String> = ["57P03", "57P01", "57P02", "53300"]
    /// Connection-level failures: refused, closed, torn.
    static let unreachable: [PSQLError.Code] = [.connectionError, .serverClosedConnection, .uncleanShutdown]

    static func isLostRace(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return false }
        return lostRace.contains(state)
    }
}
