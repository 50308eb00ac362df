import Foundation
import MTProto
import NIOCore
import TL

/// What the network layer opened, for tests and `synccore bench login` (counts, never timings).
public struct NetworkAccounting: Equatable, Sendable {
    public var tcpConnections = 0
    /// HTTP requests made (signed config blobs fetched by endpoint discovery).
    public var httpRequests = 0
    /// `auth.importAuthorization` calls made (one per data center a login is carried to).
    public var authorizationTransfers = 0
    /// Keepalive pings answered with a pong.
    public var pongs = 0

    public init(tcpConnections: Int = 0, httpRequests: Int = 0, authorizationTransfers: Int = 0, pongs: Int = 0) {
        self.tcpConnections = tcpConnections
        self.httpRequests = httpRequests
        self.authorizationTransfers = authorizationTransfers
        self.pongs = pongs
    }
}

/// A new main connection, hence a new MTProto session: `number` grows by one with each (per manager), so a
/// difference answered on session N (`sendNotingSession`) is known to cover the change to every session up to N.
public struct SessionChange: Equatable, Sendable {
    public let dc: Int32
    public let number: Int

    public init(dc: Int32, number: Int) {
        self.dc = dc
        self.number = number
    }
}

public enum NetworkError: Error, Equatable, Sendable {
    /// The directory has no address for this data center (and discovery, if any, found none).
    case unknownDataCenter(Int32)
    /// Every address of the data center failed; the last error is given.
    case unreachable(dc: Int32, reason: String)
    /// A migration error pointed to another data center again after one move (a loop the server should not cause).
    case migrationLoop(String)
    case unsupportedProxySecret(String)
    /// No answer from the data center within `requestTimeout` (the connection is dropped; the request is not resent,
    /// since it may have been executed).
    case timedOut(dc: Int32)
    /// The network stayed unavailable (`setNetworkAvailable(false)`) for the whole `requestTimeout`.
    case networkUnavailable
    /// The server saw this account's key used in two places at once (`AUTH_KEY_DUPLICATED`): every key and login
    /// was forgotten and the account must log in again.
    case authKeyDuplicated
    /// The home data center no longer accepts the login (a `401`: `AUTH_KEY_UNREGISTERED`, `SESSION_REVOKED`,
    /// `USER_DEACTIVATED`, …): the account was logged out elsewhere. The keys stay; the login was forgotten.
    case loggedOutByServer(String)
    /// The manager was closed: it opens no connection and writes its state file no more (a request still running
    /// in a cancelled task must not reconnect, nor recreate the file of an account being removed).
    case closed
}

/// The client's connections to the data centers of one account (core.telegram.org/api/datacenter): one shared
/// directory and one auth key per data center (`NetworkState`, persisted after every change, so no exchange or
/// discovery is repeated), at most one main connection per data center, reused by every request to it.
///
/// `PHONE_MIGRATE_X`, `USER_MIGRATE_X` and `NETWORK_MIGRATE_X` move the master data center in place and repeat the
/// request there once; the first request to another data center carries the login over with
/// `auth.exportAuthorization` / `auth.importAuthorization`, once per data center. The first call on each connection is
/// wrapped in `invokeWithLayer(initConnection(…))`, as servers require (core.telegram.org/api/invoking).
///
/// A connection found closed is replaced and the request sent again, once; `500`s, `-503` timeouts and data centers
/// none of whose addresses answer are retried with exponential backoff and jitter (`transientAttempts` in all);
/// `FLOOD_WAIT_X` is slept through when X is at most `floodSleepLimit`, surfaced above. `applyConfig` takes
/// `help.getConfig`'s addresses and restarts only the connections whose addresses changed.
///
/// With a `proxy`, every connection goes through it (the data center named in the obfuscated header).
///
/// Each data center's `ConnectionKeeper` (`ConnectionManager+Keeper.swift`) pings every open connection with
/// `ping_delay_disconnect` and closes one whose pong does not come, so a dead path is noticed by both ends instead of
/// lingering (core.telegram.org/mtproto/service_messages#deferred-connection-closure--ping); with
/// `keepConnected(true)` it also reopens the master data center's connection by itself after every drop.
///
/// `download: true` requests go to download workers (`ConnectionManager+Downloads.swift`).
///
/// Every wait has a deadline: TCP connect and key exchange `connectTimeout`, each answer `requestTimeout`. A task
/// cancelled while it waits gets `CancellationError` at once (a late answer is dropped). When addresses run out (every
/// address of a data center failed, or a migration names a data center the directory does not know) the `discovery`
/// sources and `help.getConfig` on the other data centers are asked at once, once per request
/// (`ConnectionManager+Discovery.swift`). `setNetworkAvailable` is the hook for the platform's reachability: while
/// the network is away connections are closed and requests wait for it (up to `requestTimeout`); when it returns
/// they go at once. `AUTH_KEY_DUPLICATED` ends every session and logs the account out (`loggedOut`).
public actor ConnectionManager {
    public static let layer: Int32 = 229

    var state: NetworkState
    /// Counts every change of a key or of its login (sign-in, logout, key replaced or reloaded: `loginChanged`). A `401`
    /// to a call sent before a change is about the login that ended then, even when the same user signed in again
    /// since: a call racing a logout and answered after the next sign-in must not end the new login.
    private(set) var loginChanges = 0
    private let file: NetworkStateFile?
    let publicKeys: [RSAPublicKey]
    let group: any EventLoopGroup
    let framing: TransportFraming
    let proxy: MTProxy?
    /// The clock and randomness of this side (backoff and keepalive jitter, msg_ids of new connections); what
    /// runs on this network (an account's managers) reads them here too.
    public nonisolated let environment: SyncEnvironment
    var now: @Sendable () -> Double { environment.now }
    /// Sources asked when addresses run out, besides `help.getConfig` on the other data centers.
    let discovery: EndpointDiscovery?
    /// Bounds each TCP connect and key exchange.
    public let connectTimeout: Duration
    /// Bounds the wait for each answer, and for the network to come back.
    public let requestTimeout: Duration
    /// Whether the platform says the network is there (`setNetworkAvailable`), and the requests waiting for it.
    var networkAvailable = true
    var networkWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    var nextWaiterID = 0
    /// `FLOOD_WAIT_X` up to this many seconds is waited out; longer ones are thrown to the caller.
    public let floodSleepLimit: Int32
    /// Attempts for a request that meets `500`/`-503` or an unreachable data center (the first included).
    public static let transientAttempts = 4
    /// The rules followed after a failed request.
    var recovery: RequestRecovery { RequestRecovery(floodSleepLimit: floodSleepLimit, transientAttempts: Self.transientAttempts) }
    /// The keepers' pings, pong deadline and reconnect backoff.
    public let keepalive: ConnectionKeeperTiming
    /// Each data center's keeper (`ConnectionManager+Keeper.swift`) and the task waiting for its next deadline.
    var keepers: [Int32: ConnectionKeeper<RandomSource>] = [:]
    var keeperTimers: [Int32: Task<Void, Never>] = [:]
    /// Main connections that answered a call (their keeper was told once).
    var provenConnections: Set<ObjectIdentifier> = []
    /// `keepConnected(true)` was called: the master data center's connection is reopened by itself.
    var keepingConnected = false
    /// `logOut` is telling the server: a `401` meanwhile is its own doing.
    var loggingOut = false
    /// False: every call goes inside `invokeWithoutUpdates`, so the server pushes nothing here (a process that does
    /// not sync the account: nobody would read its pushes).
    public private(set) var pushesWanted = true
    var connections: [Int32: MTProtoClient] = [:]
    /// Set by `close`, for good (`NetworkError.closed`).
    private(set) var isClosed = false
    /// Connections being opened: a second request to the same data center waits for the first one's connection.
    var opening: [Int32: Task<MTProtoClient, any Error>] = [:]
    /// The session number of each main connection (`SessionChange.number`), and the last one given.
    var sessionNumbers: [ObjectIdentifier: Int] = [:]
    var lastSessionNumber = 0
    /// Connections whose first call (with initConnection) has been sent.
    private var initialized: Set<ObjectIdentifier> = []
    /// Download workers per data center (`ConnectionManager+Downloads.swift`).
    var workers: [Int32: [DownloadWorker]] = [:]
    /// Download connections per data center besides the main one (each its own session on the data center's key).
    public static let downloadWorkers = 4
    /// Which connection carries each call and what goes before it (`ConnectionRoutes`); this actor executes them.
    let routes = ConnectionRoutes(workersPerDataCenter: ConnectionManager.downloadWorkers)
    /// What the routing rules read of this manager's state now.
    var network: ConnectionRoutes.Network {
        ConnectionRoutes.Network(home: masterDC, keys: Set(state.keys.keys), logins: state.keys.compactMapValues(\.userID), pushesWanted: pushesWanted,
                                 available: networkAvailable)
    }
    public private(set) var accounting = NetworkAccounting()
    /// The same counts split by the phase named with `beginPhase` when they happened (login, catch-up, …).
    public private(set) var accountingByPhase: [String: NetworkAccounting] = [:]
    private var phase: String?
    /// Update pushes from every connection, as serialized `Updates`, in arrival order per connection. Each access
    /// subscribes anew and ends the previous subscription (one consumer at a time: a new sync after a logout takes
    /// over); pushes with no consumer wait for the next.
    public nonisolated var updates: AsyncStream<[UInt8]> { updatesRelay.subscribe() }
    /// Every new main connection: each starts a new MTProto session, after which the server pushes only what happens
    /// from then on, so the sync engine fetches a difference (core.telegram.org/api/updates#recovering-gaps). Each
    /// access subscribes anew, as `updates`.
    public nonisolated var sessionChanges: AsyncStream<SessionChange> { sessionChangesRelay.subscribe() }
    /// Why the account was logged out by the network layer: `NetworkError.authKeyDuplicated`, or
    /// `loggedOutByServer` for a `401` on the home data center while logged in (not for the app's own `logOut`).
    /// Each access subscribes anew, as `updates`.
    public nonisolated var loggedOut: AsyncStream<NetworkError> { loggedOutRelay.subscribe() }
    /// What connections push into, straight from their event loops.
    let updatesRelay = SubscriberRelay<[UInt8]>()
    let sessionChangesRelay = SubscriberRelay<SessionChange>()
    let loggedOutRelay = SubscriberRelay<NetworkError>()
    let readinessRelay = ReadinessRelay()

    /// `state.masterDC` (or `initialDC` when the state has none) is where requests go by default.
    public init(state: NetworkState, file: NetworkStateFile? = nil, initialDC: Int32, publicKeys: [RSAPublicKey],
                group: any EventLoopGroup, framing: TransportFraming = .intermediate, proxy: MTProxy? = nil,
                floodSleepLimit: Int32 = 10, keepalive: ConnectionKeeperTiming = ConnectionKeeperTiming(), discovery: EndpointDiscovery? = nil,
                connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30),
                environment: SyncEnvironment = .live) {
        var state = state
        if state.masterDC == nil { state.masterDC = initialDC }
        self.state = state
        self.file = file
        self.publicKeys = publicKeys
        self.group = group
        self.framing = framing
        self.proxy = proxy
        self.floodSleepLimit = floodSleepLimit
        self.keepalive = keepalive
        self.discovery = discovery
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.environment = environment
    }

    public var masterDC: Int32 { state.masterDC ?? 0 }
    public var networkState: NetworkState { state }

    /// Sends `function` to `dc` (the master data center when nil) and returns its typed result. A migration error
    /// moves the master data center and repeats the request there once. `download` requests go to the download
    /// workers, under `invokeWithoutUpdates` (a worker's session wants no pushes).
    public func send<Function: TLFunction>(_ function: Function, dc: Int32? = nil, download: Bool = false) async throws -> Function.Result {
        try await sendNotingSession(function, dc: dc, download: download).result
    }

    /// As `send`, with the number of the session that answered (`SessionChange.number`; 0 for a download worker's).
    /// A difference answered on session N covers every push missed before N opened: the sync engine needs no other
    /// difference for that session change. Failures follow `RequestRecovery`'s rules; this loop executes them.
    public func sendNotingSession<Function: TLFunction>(_ function: Function, dc: Int32? = nil, download: Bool = false)
        async throws -> (result: Function.Result, session: Int) {
        var target = dc ?? masterDC
        var attempt = RequestRecovery.Attempt()
        while true {
            try await waitForNetwork()
            // The login the request goes out under: a 401 is about that one, not one made while it was in flight.
            let sentUnder = loginChanges
            let failure: RequestRecovery.Failure
            let thrown: any Error
            let route = routes.route(to: target, download: download, in: network)
            do {
                if route.kind == .download { return (try await sendToWorker(function, route: route), 0) }
                let connection = try await connection(to: target)
                return (try await sendOn(connection, function, route: route), sessionNumbers[ObjectIdentifier(connection)] ?? 0)
            } catch let error as MTProtoClientError {
                switch error {
                case .connectionClosed: failure = .connectionClosed
                case let .transport(code) where code == -404: failure = .unknownKey
                case .timedOut: failure = .timedOut
                case let .rpc(rpc): failure = .rpc(rpc)
                default: throw error
                }
                thrown = error
            } catch let error as NetworkError {
                switch error {
                case .unreachable: failure = .unreachable
                case .unknownDataCenter: failure = .unknownDataCenter
                default: throw error
                }
                thrown = error
            }
            let homeLoggedIn = routes.wentToLoggedInHome(target, in: network, loggingOut: loggingOut)
            let decision = recovery.decide(failure, &attempt, movable: dc == nil, homeLoggedIn: homeLoggedIn,
                                           loginUnchanged: loginChanges == sentUnder,
                                           canDiscover: discovery != nil && networkAvailable, backoff: { [random = environment.random] in Self.backoff(attempt: $0, random: random) })
            switch decision {
            case let .retry(after: seconds):
                try await environment.sleep(seconds: seconds)
            case .reconnect:
                if !download { await drop(target) }   // a download worker that closed was retired already
            case .replaceKey:
                await drop(target)
                state.keys[target] = nil
                loginChanged()
                try persist()
            case .discover:
                if failure == .unknownDataCenter { try await ensureAddresses(of: target) } else { _ = try? await discoverEndpoints(excluding: target) }
            case let .moveHome(to: home):
                try await ensureAddresses(of: home)
                try setMaster(home)
                target = home
            case .dropAllKeys:
                await logOutAfterDuplicatedKey()
                throw NetworkError.authKeyDuplicated
            case let .loggedOutElsewhere(message):
                forgetLogin()
                try persist()
                loggedOutRelay.yield(.loggedOutByServer(message))
                throw thrown
            case .forgetLogin:
                state.keys[target]?.userID = nil
                loginChanged()
                try persist()
                throw thrown
            case .dropAndFail:
                await drop(target)
                throw NetworkError.timedOut(dc: target)
            case .fail:
                if attempt.moved, case let .rpc(rpc) = failure, rpc.migration != nil { throw NetworkError.migrationLoop(rpc.message) }
                throw thrown
            }
        }
    }

    /// Takes `help.getConfig`'s `dc_options` into the shared directory; the connections of data centers whose
    /// addresses changed are closed (the next request reconnects to a new address), the others are kept.
    /// Returns the data centers that changed.
    @discardableResult
    public func applyConfig(_ options: [API.DcOption]) async throws -> Set<Int32> {
        let changed = state.directory.apply(options)
        for dc in changed.sorted() { await drop(dc) }
        if !changed.isEmpty { try persist() }
        return changed
    }

    /// Asks the master data center for `help.getConfig` and applies its addresses.
    @discardableResult
    public func refreshConfig() async throws -> Set<Int32> {
        guard case let .config(config) = try await send(API.functions.help.GetConfig()) else { return [] }
        return try await applyConfig(config.dcOptions)
    }

    /// Counts from now on also go to `accountingByPhase[name]` (nil: to the totals only).
    public func beginPhase(_ name: String?) {
        phase = name
    }

    /// Adds `amount` to one count, in the totals and the current phase.
    func count(_ field: WritableKeyPath<NetworkAccounting, Int>, _ amount: Int = 1) {
        accounting[keyPath: field] += amount
        if let phase { accountingByPhase[phase, default: NetworkAccounting()][keyPath: field] += amount }
    }

    /// Reads the state file again (another process on the same directory changed it) and closes the connections.
    public func reloadState() async throws {
        guard let loaded = try file?.load() else { return }
        let master = masterDC
        state = loaded
        loginChanged()
        if state.masterDC == nil { state.masterDC = master }
        await dropAll()
    }

    /// Whether this manager's sessions get pushes; a change closes the open connections, so the next ones are new
    /// sessions of the right kind (a session once muted by `invokeWithoutUpdates` stays muted on the server).
    public func setPushesWanted(_ wanted: Bool) async {
        guard wanted != pushesWanted else { return }
        pushesWanted = wanted
        await dropAll()
    }

    /// Records that the master data center's key is now logged in as `userID` (after `auth.signIn`/`signUp`).
    public func authorized(userID: Int64) throws {
        state.keys[masterDC]?.userID = userID
        loginChanged()
        try persist()
    }

    /// Closes every connection and ends `updates` and `sessionChanges`; from here on requests fail with
    /// `NetworkError.closed` and the state file is left alone.
    public func close() async {
        isClosed = true
        stopKeepers()
        for connection in connections.values { await connection.close() }
        connections.removeAll()
        initialized.removeAll()
        await closeWorkers()
        updatesRelay.finish()
        sessionChangesRelay.finish()
        readinessRelay.finish()
        loggedOutRelay.finish()
    }

    // MARK: internals

    private func setMaster(_ dc: Int32) throws {
        let old = masterDC
        state.masterDC = dc
        keeperMasterMoved(from: old)
        try persist()
    }

    /// 100 ms doubling per attempt, with up to 50% random jitter so clients that failed together do not retry together;
    /// in seconds.
    static func backoff(attempt: Int, random: RandomSource) -> Double {
        0.1 * Double(1 << min(attempt - 1, 6)) * random.double(in: 1.0...1.5)
    }

    /// Sends a routed call on the connection that carries it, after carrying the login there when the rules say so.
    func sendOn<Function: TLFunction>(_ connection: MTProtoClient, _ function: Function, route: ConnectionRoutes.Route) async throws -> Function.Result {
        try await transferAuthorization(to: route.dc, over: connection)
        let result: Function.Result
        if route.withoutUpdates {
            result = try await callInitialized(API.functions.InvokeWithoutUpdates(query: function), on: connection)
        } else {
            result = try await callInitialized(function, on: connection)
        }
        keeperAnswered(route.dc, on: connection)
        return result
    }

    /// Closes every connection and download worker (the stored keys stay).
    func dropAll() async {
        for dc in Array(connections.keys) { await drop(dc) }
        await closeWorkers()
    }

    func drop(_ dc: Int32) async {
        if let connection = connections.removeValue(forKey: dc) {
            initialized.remove(ObjectIdentifier(connection))
            sessionNumbers.removeValue(forKey: ObjectIdentifier(connection))
            await connection.close()
        }
    }

    /// A call of the manager's own (a login transfer, a config read) on `dc`'s main connection, wrapped as the rules say.
    func call<Function: TLFunction>(_ function: Function, on connection: MTProtoClient, dc: Int32) async throws -> Function.Result {
        if routes.route(to: dc, download: false, in: network).withoutUpdates {
            return try await callInitialized(API.functions.InvokeWithoutUpdates(query: function), on: connection)
        }
        return try await callInitialized(function, on: connection)
    }

    private func callInitialized<Function: TLFunction>(_ function: Function, on connection: MTProtoClient) async throws -> Function.Result {
        guard initialized.contains(ObjectIdentifier(connection)) else {
            initialized.insert(ObjectIdentifier(connection))
            return try await connection.call(API.functions.InvokeWithLayer(layer: Self.layer, query: API.functions.InitConnection(
                apiId: 1, deviceModel: "SyncCore", systemVersion: "Swift", appVersion: "0.1", systemLangCode: "en", langPack: "",
                langCode: "en", query: function)), timeout: requestTimeout)
        }
        return try await connection.call(function, timeout: requestTimeout)
    }

    /// Logs `dc`'s key in as the master's account, once: `auth.exportAuthorization` on the master data center,
    /// `auth.importAuthorization` on `dc` (core.telegram.org/api/datacenter#authorization-transfer).
    private func transferAuthorization(to dc: Int32, over connection: MTProtoClient) async throws {
        guard let user = routes.authorizationToTransfer(to: dc, in: network) else { return }
        let master = try await self.connection(to: masterDC)
        guard case let .exportedAuthorization(exported) = try await call(
            API.functions.auth.ExportAuthorization(dcId: dc), on: master, dc: masterDC)
        else { return }
        count(\.authorizationTransfers)
        _ = try await call(API.functions.auth.ImportAuthorization(id: exported.id, bytes: exported.bytes), on: connection, dc: dc)
        state.keys[dc]?.userID = user
        loginChanged()
        try persist()
    }

    /// A key or a login changed (see `loginChanges`).
    func loginChanged() { loginChanges += 1 }

    func persist() throws {
        guard !isClosed else { return }
        try file?.save(state)
    }
}
