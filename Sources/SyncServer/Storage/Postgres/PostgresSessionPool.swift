import Dispatch
import Logging
import MTProtoNIO
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The SQL of one prepared statement. Each statement is a type: postgres-nio names a prepared statement after its
/// type and prepares it once per connection (`PostgresPreparedStatement`), so every later run skips parsing and
/// planning.
protocol PostgresSQL: Sendable {
    static var sql: String { get }
    /// The prepared statement's name (`PreparedNames`).
    static var preparedName: String { get }
}

extension PostgresSQL {
    static var preparedName: String { PreparedNames.name(of: Self.self) }
}

/// A statement of `Text` with its parameters, run through postgres-nio's prepared-statement cache.
struct Prepared<Text: PostgresSQL>: PostgresPreparedStatement {
    typealias Row = PostgresRow
    static var sql: String { Text.sql }
    /// "PostgresTransaction.UpsertChannel": PostgreSQL cuts names at 63 bytes, where the default (the full generic
    /// type name) made two statements collide.
    static var name: String { Text.preparedName }
    let bindings: PostgresBindings

    /// The statement with its parameters, $1, $2, … in order.
    init<each Value: SQLValue>(_ values: repeat each Value) {
        var bindings = PostgresBindings()
        repeat (each values).bind(to: &bindings)
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// Each statement type's name, made once: postgres-nio asks for it at every execution, and `String(reflecting:)`
/// with the split took about 1% of a sending process's CPU (`perf`, `bench server --postgres`).
enum PreparedNames {
    private static let names = Mutex<[ObjectIdentifier: String]>([:])

    static func name(of text: Any.Type) -> String {
        if let name = names.withLock({ $0[ObjectIdentifier(text)] }) { return name }
        let name = String(reflecting: text).split(separator: ".").dropFirst().joined(separator: ".")
        names.withLock { $0[ObjectIdentifier(text)] = name }
        return name
    }
}

/// A statement parameter: the column types the schema uses, and NULL for nil.
protocol SQLValue {
    func bind(to bindings: inout PostgresBindings)
}

extension Int64: SQLValue { func bind(to bindings: inout PostgresBindings) { bindings.append(self) } }
extension Int32: SQLValue { func bind(to bindings: inout PostgresBindings) { bindings.append(self) } }
extension Int16: SQLValue { func bind(to bindings: inout PostgresBindings) { bindings.append(self) } }
extension Bool: SQLValue { func bind(to bindings: inout PostgresBindings) { bindings.append(self) } }
extension String: SQLValue { func bind(to bindings: inout PostgresBindings) { bindings.append(self) } }
/// `bytea`.
extension ByteBuffer: SQLValue { func bind(to bindings: inout PostgresBindings) { bindings.append(self) } }
/// `bigint[]`, `integer[]`, `bytea[]`…: a column of many rows, spread by `unnest`.
///
/// Reached through this protocol from a statement's parameter pack, postgres-nio's generic array encoding ran
/// unspecialized: a witness-table call and metadata lookups per element, 12% of a sending process's CPU (`perf`,
/// `bench server --postgres`). The element types the schema uses are picked out by their metatype and written by
/// `BinaryArray`; any other goes to postgres-nio.
extension Array: SQLValue where Element: PostgresArrayEncodable & PostgresNonThrowingEncodable {
    func bind(to bindings: inout PostgresBindings) {
        guard bindBinary(Int64.self, to: &bindings) || bindBinary(Int32.self, to: &bindings) || bindBinary(Int16.self, to: &bindings)
            || bindBinary(Bool.self, to: &bindings) || bindBinary(ByteBuffer.self, to: &bindings) || bindBinary(String.self, to: &bindings)
        else { return bindings.append(self) }
    }

    /// Binds the array through `BinaryArray` if its elements are `element`s (the cast is then the identity). Inlined
    /// into `bind`, where `BinaryArray` is then specialized for the concrete element; called as a function, it ran
    /// unspecialized again (`perf`: five times the samples).
    @inline(__always)
    private func bindBinary<Binary: BinaryArrayElement>(_ element: Binary.Type, to bindings: inout PostgresBindings) -> Bool {
        guard Element.self == Binary.self else { return false }
        bindings.append(BinaryArray(elements: unsafeBitCast(self, to: [Binary].self)))
        return true
    }
}

extension Optional: SQLValue where Wrapped: SQLValue {
    func bind(to bindings: inout PostgresBindings) {
        if let value = self { value.bind(to: &bindings) } else { bindings.appendNull() }
    }
}

/// One connection lent to one storage transaction. The server's transactions are synchronous closures
/// (`ServerStorage`), so they run on a thread of `PostgresSessionPool`'s own and each statement blocks that thread
/// (never an event loop or Swift concurrency's pool) until postgres-nio has its answer. Async code that has its
/// statement ready (a batch's rows, a log read) awaits it instead, without a thread of the pool.
final class PostgresSession: @unchecked Sendable {
    let connection: PostgresConnection
    private let logger: Logger
    /// How long a statement may go unanswered (`PostgresServerStorage`'s `statementDeadline`); nil inside
    /// `withoutDeadline`. Changed only by the connection's one user, between statements.
    private var deadline: TimeAmount?

    init(connection: PostgresConnection, deadline: TimeAmount, logger: Logger) {
        self.connection = connection
        self.deadline = deadline
        self.logger = logger
    }

    /// A session let go of with its connection still open (a storage dropped without `close()`, as when a caller's
    /// task throws first) closes it, and the close keeps the connection alive until it completes: a connection
    /// deallocated open is one postgres-nio never saw closed (its debug builds stop the process on it).
    deinit {
        guard !connection.isClosed else { return }
        let connection = self.connection
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Runs a prepared statement with its parameters ($1, $2, … in order) and returns its rows.
    @discardableResult
    func rows<Text: PostgresSQL, each Value: SQLValue>(_ text: Text.Type, _ values: repeat each Value) throws -> [PostgresRow] {
        try rows(Prepared<Text>(repeat each values))
    }

    /// Runs a prepared statement, blocking the calling thread.
    @discardableResult
    func rows<Text: PostgresSQL>(_ statement: Prepared<Text>) throws -> [PostgresRow] {
        try blocking { [self] in try await collect(statement) }
    }

    /// Runs a prepared statement from async code (no thread blocks), on the connection's event loop: there the rows
    /// are collected where postgres-nio receives them, and the caller's task moves once to it and once back.
    @discardableResult
    func rows<Text: PostgresSQL>(_ statement: Prepared<Text>) async throws -> [PostgresRow] {
        try await connection.eventLoop.run { try await self.collect(statement) }
    }

    private func collect<Text: PostgresSQL>(_ statement: Prepared<Text>) async throws -> [PostgresRow] {
        try ensureOpen()
        return try await withinDeadline {
            var rows: [PostgresRow] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    /// A statement without parameters that is not worth preparing (BEGIN, COMMIT, ROLLBACK, DDL).
    func run(_ sql: String) throws {
        try blocking { [self] in
            try ensureOpen()
            try await withinDeadline {
                for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {}
            }
        }
    }

    /// Closes the connection when `statement` has not ended within the deadline. A PostgreSQL that vanished without
    /// closing its sockets (a network partition, a host that lost power) would otherwise leave the statement waiting
    /// as long as TCP retries, or forever, and its connection and thread with it. Closing fails the statement (the
    /// client gets a 500 and sends again), and the connection is replaced at its next use.
    private func withinDeadline<T>(_ statement: () async throws -> T) async throws -> T {
        guard let deadline else { return try await statement() }
        let expiry = Expiry()
        let timer = connection.eventLoop.scheduleTask(in: deadline) { [self] in
            expiry.fired.store(true, ordering: .relaxed)
            closeWithoutWaiting()
        }
        defer { timer.cancel() }
        do {
            return try await statement()
        } catch where expiry.fired.load(ordering: .relaxed) {
            throw ServerStorageError.unavailable("PostgreSQL did not answer within \(deadline.nanoseconds / 1_000_000) ms; the connection was closed")
        }
    }

    /// Runs `body`'s statements without the deadline: a migration waits for another process's (its advisory lock)
    /// and may rewrite large tables, both legitimately longer than any statement of the service.
    func withoutDeadline<T>(_ body: () throws -> T) rethrows -> T {
        let saved = deadline
        deadline = nil
        defer { deadline = saved }
        return try body()
    }

    /// Starts closing the connection and returns at once (from a timer, a thread going back to the pool, a task that
    /// ends). The session stays alive until the close completes: over TLS the channel is still active while TLS's
    /// close_notify goes out, and a connection deallocated then is one postgres-nio never saw closed (its debug builds
    /// assert so; `synccore server` stopped with TLS to PostgreSQL crashed on it).
    func closeWithoutWaiting() {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(self) {} }
    }

    private final class Expiry: Sendable {
        let fired = Atomic<Bool>(false)
    }

    /// postgres-nio (1.33) never answers a statement written to a connection that has already closed: the write
    /// reaches a pipeline without its handler, and the statement's own promise is left pending, so the caller would
    /// wait forever. Called on the connection's event loop, where closes are processed, right before the statement is
    /// written in the same turn of the loop: a connection found open here is still open when the statement goes out,
    /// and one that closes later fails the statement with postgres-nio's own error.
    private func ensureOpen() throws {
        guard connection.isClosed else { return }
        throw ServerStorageError.unavailable("the connection to PostgreSQL is closed")
    }

    /// Runs `operation` on the connection's event loop and blocks the calling thread until it ends. Called only
    /// from `PostgresSessionPool`'s threads, which exist to block.
    ///
    /// Why the event loop: run on Swift concurrency's pool, a statement changed threads four times (pool thread, a
    /// concurrency thread, the event loop, a concurrency thread again, the pool thread), and PostgreSQL's log showed
    /// 0.6–0.7 ms between one statement's end and the next one's start in a batch; on the event loop it changes twice.
    private func blocking<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Mutex<Result<T, any Error>>(.failure(CancellationError()))
        let done = DispatchSemaphore(value: 0)
        let body: @Sendable () async -> Void = {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        connection.eventLoop.startTask(body)
        done.wait()
        return try outcome.withLock { $0 }.get()
    }
}

/// Connections to one PostgreSQL database, each used by one transaction at a time, with the threads those
/// transactions run on (as many threads as connections at most). Async code that runs on one event loop (the group
/// commit's fast path, the cross-process push's log reads) has a connection of its own there instead (`LoopSession`).
/// A connection that broke (the server restarted, the network dropped it) is discarded when its transaction ends, and
/// the next transaction opens a new one: the process reconnects by itself, and a transaction that failed on the broken one reaches its client as a 500.
final class PostgresSessionPool: Sendable {
    private let configuration: PostgresConnection.Configuration
    /// How long a statement may go unanswered before its connection is closed (`PostgresSession`).
    private let deadline: TimeAmount
    private let logger: Logger
    private let threads: NIOThreadPool
    /// Where the pool's connections live.
    private let group: any EventLoopGroup
    /// Idle sessions; none is kept once `shutdown` began (a job that ends after it closes its session instead: one
    /// left here would be deallocated unclosed, which postgres-nio's debug builds trap on).
    private let idle = Mutex<(sessions: [PostgresSession], shutDown: Bool)>(([], false))
    private let nextID = Atomic<Int>(0)
    /// Jobs running (each on a connection) and jobs waiting for a thread, for the metrics.
    private let inUse = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)

    /// The pool's gauges (`synccore_postgres_*`).
    var gauges: [StorageGauge] {
        [StorageGauge(name: "synccore_postgres_connections_in_use", value: Double(inUse.load(ordering: .relaxed))),
         StorageGauge(name: "synccore_postgres_connections_idle", value: Double(idle.withLock { $0.sessions.count })),
         StorageGauge(name: "synccore_postgres_waiting", value: Double(max(0, waiting.load(ordering: .relaxed))))]
    }

    init(configuration: PostgresConnection.Configuration, size: Int, deadline: TimeAmount, group: any EventLoopGroup, logger: Logger) {
        self.configuration = configuration
        self.group = group
        self.deadline = deadline
        self.logger = logger
        threads = NIOThreadPool(numberOfThreads: max(1, size))
        threads.start()
    }

    /// Runs `job` on a pool thread with a connection of its own. A connection that cannot be opened (PostgreSQL
    /// restarting) fails with the storage's `.unavailable` error, a statement PostgreSQL refused with `.database`:
    /// callers that read again after a database failure (the cross-process push) take both.
    func run<T: Sendable>(_ job: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        waiting.add(1, ordering: .relaxed)
        return try await threads.runIfActive { [self] in
            waiting.subtract(1, ordering: .relaxed)
            inUse.add(1, ordering: .relaxed)
            defer { inUse.subtract(1, ordering: .relaxed) }
            let session: PostgresSession
            do { session = try checkout() } catch { throw PostgresFailure.typed(error) }
            do {
                let value = try job(session)
                checkin(session)
                return value
            } catch {
                checkin(session)
                throw error
            }
        }
    }

    /// A new connection on `eventLoop`, outside the pool (its owner closes it).
    func connect(on eventLoop: any EventLoop) async throws -> PostgresSession {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let connection = try await PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
        return PostgresSession(connection: connection, deadline: deadline, logger: logger)
    }

    private func checkout() throws -> PostgresSession {
        while let session = idle.withLock({ $0.sessions.popLast() }) {
            if !session.connection.isClosed { return session }
            session.closeWithoutWaiting()
        }
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let connection = try PostgresConnection.connect(on: group.any(), configuration: configuration,
                                                        id: id, logger: logger).wait()
        return PostgresSession(connection: connection, deadline: deadline, logger: logger)
    }

    /// A broken connection's close is not awaited: the thread goes back to the pool at once.
    private func checkin(_ session: PostgresSession) {
        let kept = !session.connection.isClosed && idle.withLock { idle in
            guard !idle.shutDown else { return false }
            idle.sessions.append(session)
            return true
        }
        if !kept { session.closeWithoutWaiting() }
    }

    /// Closes every idle connection and stops the threads (call after the last transaction ended).
    func shutdown() async {
        let sessions = idle.withLock { idle in
            idle.shutDown = true
            defer { idle.sessions.removeAll() }
            return idle.sessions
        }
        for session in sessions { try? await session.connection.close() }
        try? await threads.shutdownGracefully()
    }
}

/// A connection of its own on one event loop, outside the pool, for async code that runs on that loop (the group
/// commit's drain, the cross-process push): its statements complete where their caller waits, without a thread
/// switch. Opened on first use and again after it broke (PostgreSQL restarted); statements of concurrent callers
/// queue on it in order.
final class LoopSession: Sendable {
    let eventLoop: any EventLoop
    private let pool: PostgresSessionPool
    private let current = Mutex<PostgresSession?>(nil)

    init(pool: PostgresSessionPool, eventLoop: any EventLoop) {
        self.pool = pool
        self.eventLoop = eventLoop
    }

    /// The open connection, or a new one when there was none or it broke (failing with the storage's error when
    /// PostgreSQL cannot be reached).
    func session() async throws -> PostgresSession {
        if let session = current.withLock({ $0 }), !session.connection.isClosed { return session }
        let opened: PostgresSession
        do {
            opened = try await pool.connect(on: eventLoop)
        } catch {
            throw PostgresFailure.typed(error)
        }
        // A caller that opened one meanwhile keeps it (statements may be on their way there); this one is closed.
        let (session, unused) = current.withLock { current -> (PostgresSession, PostgresSession?) in
            if let other = current, !other.connection.isClosed { return (other, opened) }
            defer { current = opened }
            return (opened, current)
        }
        if let unused { try? await unused.connection.close() }
        return session
    }

    func close() async {
        if let session = current.withLock({ $0.take() }) { try? await session.connection.close() }
    }
}
