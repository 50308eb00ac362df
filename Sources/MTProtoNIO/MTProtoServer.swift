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
    /// What one server lets its peers hold: connections in all and per address, how long a peer may stay silent or
    /// leave a frame unfinished, calls in flight per connection, and how many bytes of answers may wait for a peer
    /// that does not read before its calls stop being taken.
    public struct Limits: Sendable, Equatable {
        public var connections: Int
        public var connectionsPerAddress: Int
        public var readDeadline: ReadDeadline.Limits
        public var callsInFlight: Int
        public var writeBufferBytes: Int
        /// Auth-key exchanges one address may start in a burst, and afterwards per second (`KeyExchangeLimiter`).
        public var keyExchangeBurst: Int
        public var keyExchangesPerSecond: Double
        /// Every connection starts with a PROXY protocol header (`ProxyProtocolHeader`) naming the client's address,
        /// which the per-address limits count: the server sits behind a balancer that sends one.
        public var proxyProtocol = false

        public init(connections: Int = 10_000, connectionsPerAddress: Int = 1_000, readDeadline: ReadDeadline.Limits = .init(),
                    callsInFlight: Int = 64, writeBufferBytes: Int = 1 << 20, keyExchangeBurst: Int = 200,
                    keyExchangesPerSecond: Double = 10) {
            self.keyExchangeBurst = keyExchangeBurst
            self.keyExchangesPerSecond = keyExchangesPerSecond
            self.connections = connections
            self.connectionsPerAddress = connectionsPerAddress
            self.readDeadline = readDeadline
            self.callsInFlight = callsInFlight
            self.writeBufferBytes = writeBufferBytes
        }
    }

    private let channel: any Channel
    let connections: OpenConnections

    /// The port actually bound (useful with port 0).
    public var port: Int { channel.localAddress?.port ?? 0 }

    /// Connections open now.
    public var connectionCount: Int { connections.count }

    private init(channel: any Channel, connections: OpenConnections) {
        self.channel = channel
        self.connections = connections
    }

    public static func start(
        host: String, port: Int, rsaKey: RSAPrivateKey, secret: [UInt8]? = nil, maximumFrameSize: Int = 1 << 20,
        limits: Limits = Limits(), delegate: any MTProtoServerDelegate, logger: Logger, group: any EventLoopGroup,
        environment: SyncEnvironment = .live
    ) async throws -> MTProtoServer {
        let now = environment.now
        let connections = OpenConnections(capacity: DescriptorLimit.connectionCapacity(configured: limits.connections),
                                          perAddress: limits.connectionsPerAddress)
        let replayWindows = ReplayWindows()
        let keyExchanges = KeyExchangeLimiter(burst: limits.keyExchangeBurst, exchangesPerSecond: limits.keyExchangesPerSecond)
        let channel = try await ListenError.naming(host: host, port: port) { try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Out of descriptors (EMFILE), accepting again at once spins: wait a little instead.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler(backoffProvider: { _ in .milliseconds(100) }))
                }
            }
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.writeBufferBytes / 2, high: limits.writeBufferBytes))
            .childChannelInitializer { channel in
                let address = ClientAddress(channel.remoteAddress?.ipAddress ?? "")
                guard connections.admit(channel, address: limits.proxyProtocol ? nil : address.value) else {
                    logger.debug("connection refused: over the connection limit", metadata: ["peer": "\(address.value)"])
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    if limits.proxyProtocol {
                        try channel.pipeline.syncOperations.addHandler(ProxyProtocolHandler(address: address, logger: logger) { client in
                            guard connections.identify(channel, address: client) else {
                                logger.debug("connection refused: over the connection limit", metadata: ["peer": "\(client)"])
                                return false
                            }
                            return true
                        })
                    }
                    let transport = ServerTransportConnection(
                        secret: secret, maximumFrameSize: maximumFrameSize, now: { Int64(now()) }, rng: environment.random)
                    try channel.pipeline.syncOperations.addHandler(TransportHandler(
                        connection: transport, readDeadline: limits.readDeadline, onEstablished: { connections.established(channel) },
                        environment: environment))
                    try channel.pipeline.syncOperations.addHandler(
                        ServerConnectionHandler(rsaKey: rsaKey, delegate: delegate, logger: logger, callsInFlight: limits.callsInFlight,
                                                replayWindows: replayWindows, keyExchanges: keyExchanges, clientAddress: address,
                                                now: now, environment: environment))
                }
            }
            .bind(host: host, port: port)
            .get()
        }
        return MTProtoServer(channel: channel, connections: connections)
    }

    public func stop() async throws {
        try await channel.close()
        for connection in connections.all { try? await connection.close() }
    }
}
