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

    public init(host: String = "127.0.0.1", port: Int = 4430, advertisedHost: String? = nil, dc: Int32 = 2,
                dataDirectory: String = "./.synccore/server", secret: [UInt8]? = nil) {
        self.host = host
        self.port = port
        self.advertisedHost = advertisedHost ?? host
        self.dc = dc
        self.dataDirectory = dataDirectory
        self.secret = secret
    }
}

/// The reference server: today the MTProto endpoint (key exchange, sessions, `help.getConfig`); every other method
/// answers an `rpc_error` that names it.
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
        var bound = configuration
        // help.getConfig must advertise the real port even when the system picked it.
        let placeholderRouter = RPCRouter()
        let delegate = ServerDelegate(keys: keys, router: placeholderRouter, logger: logger)
        let server = try await MTProtoServer.start(host: configuration.host, port: configuration.port, rsaKey: keys.rsaKey,
                                                   secret: configuration.secret, delegate: delegate, logger: logger, group: group)
        bound.port = server.port
        var router = RPCRouter()
        HelpHandlers.register(in: &router, configuration: bound)
        delegate.setRouter(router)
        logger.info("listening", metadata: [
            "address": "\(configuration.host):\(server.port)", "dc": "\(configuration.dc)",
            "data": "\(configuration.dataDirectory)", "auth_keys": "\(keys.authKeyCount)",
            "rsa_fingerprint": "\(keys.rsaKey.publicKey.fingerprint)",
        ])
        return SyncServer(configuration: bound, keys: keys, server: server)
    }

    public func stop() async throws {
        try await server.stop()
    }
}
