import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOCore
import NIOPosix

/// How to run one data center.
public struct SyncServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The address put in `dc_options` (defaults to `host`).
    public var advertisedHost: String
    /// The port put in `dc_options` for the first served DC (the next DCs follow it), when clients reach the process
    /// through another port than the one it binds (a load balancer); nil: the bound ports.
    public var advertisedPort: Int?
    /// The data center served when `dcCount` is 1.
    public var dc: Int32
    /// With more than one, DCs 1…`dcCount` are served from this process on consecutive ports from `port`
    /// (or each on a free port when `port` is 0), sharing one storage; `dc` is then unused.
    public var dcCount: Int
    /// Keys live here; so does the database unless `postgresURL` is set.
    public var dataDirectory: String
    /// Keep the server's data in this PostgreSQL database (`postgres://user@host:port/database`) instead of SQLite
    /// in the data directory. Several processes may share it: each pushes what the others commit.
    public var postgresURL: String?
    /// With `postgresURL`: connections in the pool (the transactions that may run at once).
    public var postgresConnections: Int
    /// With `postgresURL`: how long a statement may go unanswered before its connection is closed and the request
    /// fails with a 500 (a database gone without closing its sockets); the listening connection is probed as often.
    public var postgresStatementDeadline: Duration
    /// With `postgresURL`: how long a start waits for a database that does not answer yet (refused, starting up)
    /// before it gives up; 0 gives up at once.
    public var postgresWait: Duration = .seconds(60)
    /// An MTProxy secret (16 bytes, 17 with `dd`, or `ee` + 16 bytes + domain): only connections using it are accepted.
    public var secret: [UInt8]?
    /// A fixed login code for development; nil makes every code random (and logged).
    public var loginCode: String?
    /// Create the development accounts (Alice, Bob, Carol) if they are missing.
    public var seedDevAccounts: Bool
    /// Events per `updates.differenceSlice`.
    public var differencePageSize: Int
    /// A gap in pts above this gets `updates.differenceTooLong`.
    public var tooLongThreshold: Int
    /// A channel pts gap above this gets `updates.channelDifferenceTooLong`.
    public var channelTooLongThreshold: Int
    /// Each user's `messages.sendMessage` rate (burst of as many); above it `FLOOD_WAIT_X`. 0 turns it off.
    public var sendsPerSecond: Double
    /// Serve Prometheus metrics on this port (`GET /metrics`; 0 picks a free one); nil serves none.
    public var metricsPort: Int?
    /// Serve the signed config blob of endpoint discovery at this `http://host:port/path` (port 0 picks a free one);
    /// nil serves none.
    public var configURL: String?
    /// Connections, deadlines and back-pressure of every DC's listener.
    public var connectionLimits = MTProtoServer.Limits()
    /// The server's clock and randomness (access hashes, login codes, tokens); tests and simulations pass their own.
    public var environment = SyncEnvironment.live
    /// The largest file a user may upload: Telegram's 4,000 parts of 512 KiB by default (`FILE_PARTS_INVALID` above it).
    public var maximumFileSize: Int64 = Int64(UploadRules.maximumParts) * Int64(UploadRules.maximumPartSize)
    /// What one user may keep: the files they uploaded and their uploads in progress (`UPLOAD_QUOTA_EXCEEDED` above it).
    public var userStorageQuota: Int64 = 20 << 30
    /// An upload not used within this many seconds is removed with its parts.
    public var uploadLifetime: Int32 = 24 * 3600
    /// The RSA key stored at the first start on a storage that has none; nil makes a new 2048-bit key then (about a
    /// second of CPU). A storage that holds a key keeps it. Tests and simulations that start many servers on fresh
    /// storages in one process pass one key: hundreds made at once held every thread for over a minute.
    public var initialRSAKey: RSAPrivateKey?

    public init(host: String = "127.0.0.1", port: Int = 4430, advertisedHost: String? = nil, dc: Int32 = 2,
                dataDirectory: String = "./.synccore/server", secret: [UInt8]? = nil, loginCode: String? = nil,
                seedDevAccounts: Bool = false, differencePageSize: Int = 1_000, tooLongThreshold: Int = 1_000_000,
                channelTooLongThreshold: Int = 10_000, sendsPerSecond: Double = 10_000, dcCount: Int = 1,
                metricsPort: Int? = nil, configURL: String? = nil, postgresURL: String? = nil,
                postgresConnections: Int = 16, postgresStatementDeadline: Duration = .seconds(30),
                initialRSAKey: RSAPrivateKey? = nil) {
        self.initialRSAKey = initialRSAKey
        self.postgresURL = postgresURL
        self.postgresConnections = max(1, postgresConnections)
        self.postgresStatementDeadline = postgresStatementDeadline
        self.host = host
        self.port = port
        self.advertisedHost = advertisedHost ?? host
        self.dc = dc
        self.dcCount = max(1, dcCount)
        self.metricsPort = metricsPort
        self.configURL = configURL
        self.dataDirectory = dataDirectory
        self.secret = secret
        self.loginCode = loginCode
        self.seedDevAccounts = seedDevAccounts
        self.differencePageSize = max(1, differencePageSize)
        self.tooLongThreshold = max(1, tooLongThreshold)
        self.channelTooLongThreshold = max(1, channelTooLongThreshold)
        self.sendsPerSecond = sendsPerSecond
    }

    /// The data centers this process serves.
    public var servedDCs: [Int32] { dcCount > 1 ? (1...Int32(dcCount)).map { $0 } : [dc] }

    /// Message text longer than this many UTF-16 units is refused with MESSAGE_TOO_LONG (Telegram's limit, also in
    /// `help.getConfig`).
    public static let messageLengthMax = InputLimits.messageLength
}

/// The reference server: the MTProto endpoints of one or several data centers over one storage, accounts and
/// login, private messaging and channels with their update logs, differences and pushes. Methods not implemented
/// answer an `rpc_error` that names them.
public final class SyncServer: Sendable {
    public let configuration: SyncServerConfiguration
    /// The RSA key every served DC shares, and each DC's auth keys.
    public let keys: ServerKeys
    /// Bound port of each served DC.
    public let ports: [Int32: Int]
    private let servers: [MTProtoServer]
    /// Client connections open now, over every data center this process serves.
    public var connectionCount: Int { servers.reduce(0) { $0 + $1.connectionCount } }
    private let storage: any ServerStorage
    private let metrics: HTTPEndpoint?
    private let configBlob: HTTPEndpoint?
    /// Pushes of other processes' commits (PostgreSQL only).
    private let crossProcess: Task<Void, Never>?
    /// What the handlers share (login codes, sessions, clock), for tests that look inside.
    let context: ServerContext

    private init(configuration: SyncServerConfiguration, context: ServerContext, keys: ServerKeys, ports: [Int32: Int], servers: [MTProtoServer],
                 storage: any ServerStorage, metrics: HTTPEndpoint?, configBlob: HTTPEndpoint?, crossProcess: Task<Void, Never>?) {
        self.crossProcess = crossProcess
        self.context = context
        self.configuration = configuration
        self.keys = keys
        self.ports = ports
        self.servers = servers
        self.storage = storage
        self.metrics = metrics
        self.configBlob = configBlob
    }

    /// The bound metrics port, when metrics are served.
    public var metricsPort: Int? { metrics?.port }

    /// The URL the signed config blob is served at (with the bound port), when it is served.
    public var configURL: String? {
        guard let configBlob, let url = configuration.configURL.flatMap({ try? PlainHTTPURL($0) }) else { return nil }
        return "http://\(url.host):\(configBlob.port)\(url.path)"
    }

    /// The bound port of the first served DC (the configured one, or the one the system chose for port 0).
    public var port: Int { servers.first?.port ?? 0 }

    public static func start(_ configuration: SyncServerConfiguration, logger: Logger,
                             group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> SyncServer {
        var loosened = try DataDirectoryPermissions.secure(directory: configuration.dataDirectory)
        if configuration.postgresURL == nil {
            try DataDirectoryPermissions.createPrivateFile(configuration.dataDirectory + "/server.sqlite")
        }
        let storage = try await openStorage(configuration, logger: logger, group: group)
        loosened += (try? DataDirectoryPermissions.secureFiles(in: configuration.dataDirectory)) ?? []
        for warning in loosened { logger.warning("\(warning)") }
        do {
            return try await start(configuration, storage: storage, logger: logger, group: group)
        } catch {
            await storage.close()
            throw error
        }
    }

    /// SQLite in the data directory, or the PostgreSQL database the configuration names (its connections on `group`).
    static func openStorage(_ configuration: SyncServerConfiguration, logger: Logger,
                            group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> any ServerStorage {
        if let url = configuration.postgresURL {
            return try await PostgresStartup.open(wait: configuration.postgresWait, address: PostgresURL.redacted(url),
                                                  environment: configuration.environment, logger: logger) {
                try await PostgresServerStorage(url: url, connections: configuration.postgresConnections,
                                                statementDeadline: configuration.postgresStatementDeadline,
                                                eventLoopGroup: group, environment: configuration.environment, logger: logger)
            }
        }
        return try SQLiteServerStorage(path: configuration.dataDirectory + "/server.sqlite")
    }

    /// `clock`: the server's unix time (tests move it past flood waits and code lifetimes).
    static func start(_ configuration: SyncServerConfiguration, storage: any ServerStorage, logger: Logger,
                      group: any EventLoopGroup, clock: (@Sendable () -> Int32)? = nil) async throws -> SyncServer {
        let context = ServerContext(storage: storage, configuration: configuration, logger: logger, clock: clock)
        await context.loadStatuses()
        if configuration.seedDevAccounts {
            try await AccountSeed.seed(storage, dcs: configuration.servedDCs, date: context.now)
        }
        let keys = try await ServerKeys.open(storage: storage, dataDirectory: configuration.dataDirectory,
                                             dcs: configuration.servedDCs, initialKey: configuration.initialRSAKey, logger: logger)
        var started: [(dc: Int32, delegate: ServerDelegate, server: MTProtoServer)] = []
        do {
            for (index, dc) in configuration.servedDCs.enumerated() {
                guard let directory = keys.directories[dc] else { continue }
                let delegate = ServerDelegate(keys: directory, server: context, dc: dc, router: RPCRouter(), logger: logger)
                let port = configuration.port == 0 ? 0 : configuration.port + index
                let server = try await MTProtoServer.start(host: configuration.host, port: port, rsaKey: keys.rsaKey,
                                                           secret: configuration.secret, limits: configuration.connectionLimits,
                                                           delegate: delegate, logger: logger, group: group)
                started.append((dc, delegate, server))
            }
        } catch {
            for entry in started { try? await entry.server.stop() }
            throw error
        }
        // help.getConfig advertises every DC with its bound port, so routers are built once all are bound.
        let options = started.enumerated().map { index, entry in
            DCAddress(dc: entry.dc, host: configuration.advertisedHost, port: configuration.advertisedPort.map { $0 + index } ?? entry.server.port)
        }
        for entry in started {
            entry.delegate.setRouter(router(context, dc: entry.dc, options: options))
            let authKeys = (try? await keys.authKeyCount(dc: entry.dc)) ?? 0
            logger.info("listening", metadata: [
                "address": "\(configuration.host):\(entry.server.port)", "dc": "\(entry.dc)",
                "data": "\(configuration.dataDirectory)", "auth_keys": "\(authKeys)",
                "rsa_fingerprint": "\(keys.rsaKey.publicKey.fingerprint)",
            ])
        }
        var metrics: HTTPEndpoint?
        var configBlob: HTTPEndpoint?
        do {
            if let metricsPort = configuration.metricsPort {
                let registry = PrometheusExport.registry()
                metrics = try await HTTPEndpoint.start(host: configuration.host, port: metricsPort, routes: [
                    "/metrics": { ("text/plain; version=0.0.4", MetricsExposition.render(registry, gauges: storage.gauges)) },
                ], group: group)
                logger.info("metrics", metadata: ["address": "\(configuration.host):\(metrics?.port ?? 0)/metrics"])
            }
            if let configURL = configuration.configURL {
                let url = try PlainHTTPURL(configURL)
                let route = try ConfigBlobRoute.make(options: options, secret: configuration.secret, key: keys.rsaKey,
                                                     environment: configuration.environment)
                configBlob = try await HTTPEndpoint.start(host: url.host, port: url.port, routes: [url.path: route], group: group)
                logger.info("config blob", metadata: ["url": "http://\(url.host):\(configBlob?.port ?? 0)\(url.path)"])
            }
        } catch {
            try? await metrics?.stop()
            for entry in started { try? await entry.server.stop() }
            throw error
        }
        var bound = configuration
        bound.port = started[0].server.port
        let crossProcess = storage.commitFeed.map { feed in
            let push = CrossProcessPush(server: context, feed: feed)
            return feed.eventLoop.startTask { await push.run() }
        }
        return SyncServer(configuration: bound, context: context, keys: keys,
                          ports: Dictionary(uniqueKeysWithValues: started.map { ($0.dc, $0.server.port) }),
                          servers: started.map(\.server), storage: storage, metrics: metrics, configBlob: configBlob,
                          crossProcess: crossProcess)
    }

    /// Every method one DC answers (`MethodTable`); `options` are all DCs' addresses for `help.getConfig`.
    static func router(_ server: ServerContext, dc: Int32, options: [DCAddress]) -> RPCRouter {
        MethodTable.router(server, dc: dc, options: options)
    }

    /// Closes the listeners and every connection, then the storage once the writes it accepted are durable: a
    /// handler still running gets `ServerStorageError.closed` instead of writing beside a successor on the same data.
    public func stop() async throws {
        context.stopping.store(true, ordering: .relaxed)
        try await metrics?.stop()
        try await configBlob?.stop()
        for server in servers { try await server.stop() }
        await storage.close()
        await crossProcess?.value
    }
}

/// Where one DC listens, as `help.getConfig` advertises it.
struct DCAddress: Sendable {
    let dc: Int32
    let host: String
    let port: Int
}
