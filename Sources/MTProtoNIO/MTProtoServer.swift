import Foundation
import Logging
import MTProto
import NIOCore
import NIOPosix

/// A listening MTProto server: every accepted connection gets a transport handler (any framing, plain or
/// obfuscated; only obfuscated with `secret`) and a `ServerConnectionHandler` talking to `delegate`.
public final class MTProtoServer: Sendable {
    private let channel: any Channel

    /// The port actually bound (useful with port 0).
    public var port: Int { channel.localAddress?.port ?? 0 }

    private init(channel: any Channel) {
        self.channel = channel
    }

    public static func start(
        host: String, port: Int, rsaKey: RSAPrivateKey, secret: [UInt8]? = nil, maximumFrameSize: Int = 1 << 20,
        delegate: any MTProtoServerDelegate, logger: Logger, group: any EventLoopGroup,
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) async throws -> MTProtoServer {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let transport = ServerTransportConnection(
                        secret: secret, maximumFrameSize: maximumFrameSize, rng: SecureRandom())
                    try channel.pipeline.syncOperations.addHandler(TransportHandler(connection: transport))
                    try channel.pipeline.syncOperations.addHandler(
                        ServerConnectionHandler(rsaKey: rsaKey, delegate: delegate, logger: logger, now: now))
                }
            }
            .bind(host: host, port: port)
            .get()
        return MTProtoServer(channel: channel)
    }

    public func stop() async throws {
        try await channel.close()
    }
}
