import Foundation
import Logging
import MTProto
import MTProtoNIO
import Synchronization

/// What every method handler works with: storage, online sessions, login codes, configuration, and an injected
/// clock and random source (tests fix them). One per server; `configuration.port` is the requested port (the
/// bound one is `SyncServer.port`).
final class ServerContext: Sendable {
    let storage: any ServerStorage
    let sessions = SessionRegistry()
    let logins: LoginCodes
    let configuration: SyncServerConfiguration
    let logger: Logger
    let sendRate: SendRateLimiter
    /// Profile changes and new default restrictions per user (`FLOOD_WAIT_X` past it): each tells up to
    /// `Profiles.announcedTo` boxes (a basic group's defaults, its members').
    let profileRate = SendRateLimiter(perSecond: 1.0 / 5, burst: 20)
    let presence = PresenceRegistry()
    /// Status changes told to others per user (each reads up to `Profiles.announcedTo` dialog owners); past it a change
    /// is kept but told to nobody until the user's next one within the rate.
    let statusRate = SendRateLimiter(perSecond: 1.0 / 2, burst: 10)
    /// Other changes logged with seq per user (blocks, pinned chats, drafts, notification settings; `FLOOD_WAIT_X` past
    /// it): bounded so that a second never holds more of one user's seq events than a difference page lists
    /// (`Difference.seqEventsPerPage`).
    let accountStateRate = SendRateLimiter(perSecond: 10, burst: 100)
    private let clock: @Sendable () -> Int32
    /// Auth key → user (nil: logged out), cached, misses included: bindings change only through this process's
    /// auth handlers, so a logged-out key's calls never read storage for it again.
    private let authorizations = Mutex<[UInt64: Int64?]>([:])
    /// User → home DC, cached (a home DC never changes here).
    private let homeDCs = Mutex<[Int64: Int32]>([:])
    /// Authorizations exported for another DC, waiting for their import.
    let transfers = AuthorizationTransfers()
    /// Calls answered since start, by any DC of this process.
    let callsAnswered = Atomic<Int>(0)
    /// The storage failures' log lines, bounded per method.
    let storageFailures: FailureLog
    /// Sessions claimed across processes (PostgreSQL only).
    let sessionClaims = SessionClaims()
    /// The server is stopping: its connections close, but their users are not going offline (they reconnect to
    /// another process, or to this one's successor).
    let stopping = Atomic<Bool>(false)
    /// Where file bytes live: files beside SQLite's store, or PostgreSQL's rows every process shares.
    let files: any FileContents
    /// When this process last removed expired uploads (`Uploads.sweepIfDue`).
    let lastUploadSweep = Atomic<Int32>(0)
    /// Counts the files this process made (`MediaFiles.newIdentity`).
    let fileSequence = Atomic<Int>(0)
    /// Photos being made into sizes at once: each holds up to 10 MiB of file and its pixels.
    let photoJobs = ConcurrencyLimit(2)

    /// Time and randomness come from `configuration.environment`; `clock` overrides its unix time (tests move it past
    /// flood waits and code lifetimes).
    init(storage: any ServerStorage, configuration: SyncServerConfiguration, logger: Logger, clock: (@Sendable () -> Int32)? = nil) {
        self.storage = storage
        self.configuration = configuration
        self.logger = logger
        let environment = configuration.environment
        self.clock = clock ?? { environment.unixTime }
        sendRate = SendRateLimiter(perSecond: configuration.sendsPerSecond)
        logins = LoginCodes(fixedCode: configuration.loginCode)
        storageFailures = FailureLog(now: environment.uptime)
        files = configuration.postgresURL != nil ? DatabaseFileContents(storage: storage)
            : DirectoryFileContents(dataDirectory: configuration.dataDirectory, storage: storage)
    }

    var now: Int32 { clock() }
    /// Seconds on a monotonic clock (rate limits).
    var monotonicNow: Double { configuration.environment.uptime() }

    func random<T, Failure: Error>(_ body: (inout RandomSource) throws(Failure) -> T) throws(Failure) -> T {
        var source = configuration.environment.random
        return try body(&source)
    }

    /// The user an auth key is logged in as, from the cache or storage.
    func user(authKeyID: UInt64) async throws -> Int64? {
        if let cached = authorizations.withLock({ $0[authKeyID] }) { return cached }
        let user = try await storage.read { try $0.userID(authKeyID: authKeyID) }
        authorizations.withLock { $0[authKeyID] = .some(user) }
        return user
    }

    /// The DC a user's account lives on.
    func homeDC(of user: Int64) async throws -> Int32? {
        if let cached = homeDCs.withLock({ $0[user] }) { return cached }
        guard let home = try await storage.read({ try $0.user(id: user)?.homeDC }) else { return nil }
        homeDCs.withLock { $0[user] = home }
        return home
    }

    /// Logs the key in as `user`, or out (nil): then every session of the key stops getting pushes and the
    /// connections of all but `keeping` (the session that asked, which still gets its answer) are closed, so the
    /// clients on them learn of the logout at once from their next call.
    /// The sessions are detached before the write: with PostgreSQL this process hears its own logout announcement
    /// too, possibly before the write returns, and must find the caller's session gone then, not close it.
    func bind(authKeyID: UInt64, to user: Int64?, keeping: SessionOutlet? = nil) async throws {
        let detached = user == nil ? sessions.detachAll(authKeyID: authKeyID) : []
        try await storage.write { try $0.bind(authKeyID: authKeyID, to: user) }
        authorizations.withLock { $0[authKeyID] = .some(user) }
        for outlet in detached where outlet !== keeping { outlet.closeConnection() }
    }

    /// Another process logged the key out: its login is read again from storage, and its sessions here get no more
    /// pushes and are disconnected.
    func forgetLogin(authKeyID: UInt64) {
        authorizations.withLock { $0[authKeyID] = nil }
        for outlet in sessions.detachAll(authKeyID: authKeyID) { outlet.closeConnection() }
    }
}

/// Everything a method handler may need about the call it answers.
public struct RPCContext: Sendable {
    public let rpc: IncomingRPC
    public let authKeyID: UInt64
    /// The user the key is logged in as.
    public let userID: Int64?
    /// The calling session (nil in unit tests that call a handler directly).
    public let outlet: SessionOutlet?
    /// The data center the call arrived at.
    public let dc: Int32

    public init(rpc: IncomingRPC, authKeyID: UInt64, userID: Int64? = nil, outlet: SessionOutlet? = nil, dc: Int32 = 2) {
        self.rpc = rpc
        self.authKeyID = authKeyID
        self.userID = userID
        self.outlet = outlet
        self.dc = dc
    }

    /// The logged-in user, or 401 AUTH_KEY_UNREGISTERED (what Telegram answers a key that is not logged in).
    public func user() throws(RPCError) -> Int64 {
        guard let userID else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
        return userID
    }
}

extension RPCError {
    static func badRequest(_ message: String) -> RPCError { RPCError(code: 400, message: message) }

    /// A storage failure: 500, which clients retry; the cause goes to the log, not to the client.
    static let internalError = RPCError(code: 500, message: "INTERNAL_SERVER_ERROR")
}

extension ServerContext {
    /// A read transaction for a handler: an `RPCError` thrown inside passes through; any other failure is logged
    /// and becomes a 500 the client retries.
    func storageRead<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws(RPCError) -> T {
        do {
            return try await storage.read(body)
        } catch {
            throw mapped(error)
        }
    }

    /// A write transaction for a handler (errors as in `storageRead`); returns only after the commit.
    /// `locking`: the boxes the write will lock, when the request names them (`ServerStorage.write(locking:_:)`).
    func storageWrite<T: Sendable>(locking boxes: [Int64] = [],
                                   _ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws(RPCError) -> T {
        let tally = WriteTally()
        let counted: @Sendable (any StorageWriter) throws -> T = { tx in try tally.counting { try body(tx) } }
        let started = monotonicNow
        do {
            let result = try await boxes.isEmpty ? storage.write(counted) : storage.write(locking: boxes, counted)
            ServerMetrics.committed(tally, seconds: monotonicNow - started)
            return result
        } catch {
            throw mapped(error)
        }
    }

    func bindOrFail(authKeyID: UInt64, to user: Int64?, keeping: SessionOutlet? = nil) async throws(RPCError) {
        do {
            try await bind(authKeyID: authKeyID, to: user, keeping: keeping)
        } catch {
            throw mapped(error)
        }
    }

    /// A storage failure becomes a 500; it is logged with the method that met it, at most one line per method every
    /// ten seconds (the next says how many were left out), so an outage reads as a few lines, not one per call.
    private func mapped(_ error: any Error) -> RPCError {
        if let error = error as? RPCError { return error }
        ServerMetrics.storageError(error)
        let method = CurrentCall.method ?? "-"
        guard let leftOut = storageFailures.admit(method) else { return .internalError }
        var metadata: Logger.Metadata = ["method": "\(method)", "error": "\(error)"]
        if leftOut > 0 { metadata["left_out"] = "\(leftOut) more since the last line" }
        logger.error("storage failure", metadata: metadata)
        return .internalError
    }
}
