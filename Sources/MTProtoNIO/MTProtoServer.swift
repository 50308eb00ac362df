import Foundation
import Logging
import MTProto
import NIOCore
import NIOPosix
import Synchronization

/// A listening MTProto server: every accepted connection gets a transport handler (any framing, plain or
/// obfuscated; only obfuscated with `secret`, only fake-TLS with an `ee` secret) and a `ServerConnectionHandler` talking to `delegate`. `stop` closes
/// the listener and every accepted connection, so clients see the server go away (and reconnect to its successor).
public final class MTProtoServer: Sendable {
    private let channel: any Channel
    private let connections: OpenConnections

    /// The port actually bound (useful with port 0).
    public var port: Int { channel.localAddress?.port ?? 0 }

    private init(channel: any Channel, connections: OpenConnections) {
        self.channel = channel
        self.connections = connections
    }

    public static func start(
        host: String, port: Int, rsaKey: RSAPrivateKey, secret: [UInt8]? = nil, maximumFrameSize: Int = 1 << 20,
        delegate: any MTProtoServerDelegate, logger: Logger, group: any EventLoopGroup,
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) async throws -> MTProtoServer {
        let connections = OpenConnections()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                connections.add(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let transport = ServerTransportConnection(
                        secret: secret, maximumFrameSize: maximumFrameSize, now: { Int64(now()) }, rng: SecureRandom())
                    try channel.pipeline.syncOperations.addHandler(TransportHandler(connection: transport))
                    try channel.pipeline.syncOperations.addHandler(
                        ServerConnectionHandler(rsaKey: rsaKey, delegate: delegate, logger: logger, now: now))
                }
            }
            .bind(host: host, port: port)
            .get()
        return MTProtoServer(channel: channel, connections: connections)
    }

    public func stop() async throws {
        try await channel.close()
        for connection in connections.all { try? await connection.close() }
    }
}

/// The accepted connections still open.
private final class OpenConnections: Sendable {
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        open.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in _ = open.withLock { $0.removeValue(forKey: id) } }
    }

    var all: [any Channel] { open.withLock { Array($0.values) } }
}
