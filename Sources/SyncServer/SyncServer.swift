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
    public var dc: Int32
    public var dataDirectory: String
    /// An MTProxy secret (16 bytes, or 17 with `dd`): only obfuscated connections with it are accepted.
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

    public init(host: String = "127.0.0.1", port: Int = 4430, advertisedHost: String? = nil, dc: Int32 = 2,
                dataDirectory: String = "./.synccore/server", secret: [UInt8]? = nil, loginCode: String? = nil,
                seedDevAccounts: Bool = false, differencePageSize: Int = 1_000, tooLongThreshold: Int = 1_000_000,
                channelTooLongThreshold: Int = 10_000, sendsPerSecond: Double = 10_000) {
        self.host = host
        self.port = port
        self.advertisedHost = advertisedHost ?? host
        self.dc = dc
        self.dataDirectory = dataDirectory
        self.secret = secret
        self.loginCode = loginCode
        self.seedDevAccounts = seedDevAccounts
        self.differencePageSize = max(1, differencePageSize)
        self.tooLongThreshold = max(1, tooLongThreshold)
        self.channelTooLongThreshold = max(1, channelTooLongThreshold)
        self.sendsPerSecond = sendsPerSecond
    }

    /// Message text longer than this is refused with MESSAGE_TOO_LONG (Telegram's limit, also in `help.getConfig`).
    public static let messageLengthMax = 4_096
}

/// The reference server: the MTProto endpoint, accounts and login, private messaging with per-user update logs,
/// differences and pushes. Methods not implemented yet answer an `rpc_error` that names them.
public final class SyncServer: Sendable {
    public let configuration: SyncServerConfiguration
    public let keys: ServerKeyFiles
    private let server: MTProtoServer

    private init(configuration: SyncServerConfiguration, keys: ServerKeyFiles, server: MTProtoServer) {
        self.configuration = configuration
        self.keys = keys
        self.server = server
    }

    /// The bound port (the configured one, or the one the system chose for port 0).
    public var port: Int { server.port }

    public static func start(_ configuration: SyncServerConfiguration, logger: Logger,
                             group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> SyncServer {
        let keys = try ServerKeyFiles(directory: configuration.dataDirectory)
        for warning in keys.warnings { logger.warning("\(warning)") }
        let storage = try SQLiteServerStorage(path: configuration.dataDirectory + "/server.sqlite")
        if configuration.seedDevAccounts {
            try await AccountSeed.seed(storage, homeDC: configuration.dc, date: Int32(clamping: Int64(Date().timeIntervalSince1970)))
        }
        var bound = configuration
        let context = ServerContext(storage: storage, configuration: configuration, logger: logger)
        let delegate = ServerDelegate(keys: keys, server: context, router: router(context, help: configuration), logger: logger)
        let server = try await MTProtoServer.start(host: configuration.host, port: configuration.port, rsaKey: keys.rsaKey,
                                                   secret: configuration.secret, delegate: delegate, logger: logger, group: group)
        // help.getConfig must advertise the real port even when the system picked it.
        bound.port = server.port
        delegate.setRouter(router(context, help: bound))
        logger.info("listening", metadata: [
            "address": "\(configuration.host):\(server.port)", "dc": "\(configuration.dc)",
            "data": "\(configuration.dataDirectory)", "auth_keys": "\(keys.authKeyCount)",
            "rsa_fingerprint": "\(keys.rsaKey.publicKey.fingerprint)",
        ])
        return SyncServer(configuration: bound, keys: keys, server: server)
    }

    /// Every method this server answers, one small handler each; `help` is the configuration `help.getConfig`
    /// advertises (with the bound port).
    static func router(_ server: ServerContext, help: SyncServerConfiguration) -> RPCRouter {
        var router = RPCRouter()
        HelpHandlers.register(in: &router, configuration: help)
        AuthHandlers.register(in: &router, server: server)
        UsersHandlers.register(in: &router, server: server)
        MessagesHandlers.register(in: &router, server: server)
        HistoryHandlers.register(in: &router, server: server)
        EditDeleteHandlers.register(in: &router, server: server)
        ChannelsHandlers.register(in: &router, server: server)
        UpdatesHandlers.register(in: &router, server: server)
        return router
    }

    public func stop() async throws {
        try await server.stop()
    }
}
