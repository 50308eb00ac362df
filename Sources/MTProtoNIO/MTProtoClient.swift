import Foundation
import MTProto
import NIOCore
import NIOPosix
import TL

/// A single MTProto connection for a client: connects over any transport, creates an auth key (or uses a stored
/// one) and makes typed calls. The full connection manager (several DCs, reconnects, migration) builds on this.
public final class MTProtoClient: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<ClientConnectionHandler>
    /// The auth key in use (created by this connection's exchange, or the one passed in).
    public let key: AuthKeyExchangeResult
    /// Server-initiated objects (update pushes) as serialized TL, in arrival order; ends when the connection closes.
    public let updates: AsyncStream<[UInt8]>

    private init(channel: any Channel, handler: NIOLoopBound<ClientConnectionHandler>, key: AuthKeyExchangeResult,
                 updates: AsyncStream<[UInt8]>) {
        self.channel = channel
        self.handler = handler
        self.key = key
        self.updates = updates
    }

    /// Connects and makes (or takes) the auth key; `timeout` bounds the TCP connect and, separately, the key
    /// exchange (a server that accepts and never answers fails with `MTProtoClientError.timedOut`). Pushes go to
    /// `pushes` when given, called on the event loop (a consumer of several connections saves a task hop per push;
    /// `updates` then stays empty), and to `updates` otherwise.
    public static func connect(
        host: String, port: Int, framing: TransportFraming, obfuscated: Bool = false, secret: [UInt8]? = nil,
        publicKeys: [RSAPublicKey], dc: Int32 = 2, existingKey: AuthKeyExchangeResult? = nil, group: any EventLoopGroup,
        timeout: Duration = .seconds(10), environment: SyncEnvironment = .live,
        pushes: (@Sendable ([UInt8]) -> Void)? = nil
    ) async throws -> MTProtoClient {
        let eventLoop = group.next()
        let now = environment.now
        let ready = eventLoop.makePromise(of: AuthKeyExchangeResult.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(TimeAmount(timeout))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let transport = try ClientTransportConnection(
                            framing: framing, obfuscated: obfuscated, secret: secret, dc: Int16(dc),
                            time: Int32(clamping: Int64(now())), rng: environment.random)
                        try channel.pipeline.syncOperations.addHandler(TransportHandler(connection: transport, environment: environment))
                        try channel.pipeline.syncOperations.addHandler(ClientConnectionHandler(
                            publicKeys: publicKeys, dc: dc, existingKey: existingKey, ready: ready, environment: environment))
                    }
                }
                .connect(host: host, port: port)
                .get()
        } catch {
            ready.fail(error)   // the exchange never started; the promise must not be left pending
            throw error
        }
        let deadline = eventLoop.scheduleTask(in: TimeAmount(timeout)) { ready.fail(MTProtoClientError.timedOut) }
        let key: AuthKeyExchangeResult
        let handler: NIOLoopBound<ClientConnectionHandler>
        do {
            handler = try await channel.pipeline.handler(type: ClientConnectionHandler.self).map {
                NIOLoopBound($0, eventLoop: eventLoop)
            }.get()
            key = try await ready.futureResult.get()
            deadline.cancel()
        } catch {
            deadline.cancel()
            try? await channel.close()
            throw error
        }
        let (updates, continuation) = AsyncStream<[UInt8]>.makeStream()
        let sink: @Sendable ([UInt8]) -> Void = pushes ?? { continuation.yield($0) }
        try await eventLoop.submit { handler.value.onUpdate = sink }.get()
        channel.closeFuture.whenComplete { _ in continuation.finish() }
        return MTProtoClient(channel: channel, handler: handler, key: key, updates: updates)
    }

    /// Sends `function` and decodes its typed result; an `rpc_error` throws `MTProtoClientError.rpc`. With a
    /// `timeout`, no answer by then throws `MTProtoClientError.timedOut`; a cancelled task throws `CancellationError`
    /// at once. Either way an answer that comes later is dropped.
    public func call<Function: TLFunction>(_ function: Function, timeout: Duration? = nil) async throws -> Function.Result {
        let bytes = try await callRaw(function.serialized(), timeout: timeout)
        do {
            return try Function.Result.deserialize(bytes)
        } catch {
            throw MTProtoClientError.decoding("\(error)")
        }
    }

    /// Sends pre-serialized call bytes; returns the raw result (deadline and cancellation as for `call`).
    public func callRaw(_ body: [UInt8], timeout: Duration? = nil) async throws -> [UInt8] {
        let promise = eventLoop.makePromise(of: [UInt8].self)
        let deadline = timeout.map { eventLoop.scheduleTask(in: TimeAmount($0)) { promise.fail(MTProtoClientError.timedOut) } }
        defer { deadline?.cancel() }
        start(body, promise: promise)
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            promise.fail(CancellationError())   // a completed promise ignores this
        }
    }

    /// Sends pre-serialized call bytes; the future completes on `eventLoop` with the raw result. For callers that
    /// live on the event loop (load generators), without a Swift task per call.
    public func callFuture(_ body: [UInt8]) -> EventLoopFuture<[UInt8]> {
        let promise = eventLoop.makePromise(of: [UInt8].self)
        start(body, promise: promise)
        return promise.futureResult
    }

    private func start(_ body: [UInt8], promise: EventLoopPromise<[UInt8]>) {
        let handler = self.handler
        if eventLoop.inEventLoop {
            handler.value.call(body, promise: promise)
        } else {
            eventLoop.execute { handler.value.call(body, promise: promise) }
        }
    }

    /// False once the connection closed (calls then fail with `MTProtoClientError.connectionClosed`).
    public var isActive: Bool { channel.isActive }

    /// The event loop this connection's I/O and `callFuture` results run on.
    public var eventLoop: any EventLoop { channel.eventLoop }

    /// Stops (or resumes) reading from the socket: what the server sends then waits in the kernel's buffers and, once
    /// they are full, in the server's own queue (flow control, and how tests play a slow reader).
    public func setReading(_ enabled: Bool) async throws {
        try await channel.setOption(ChannelOptions.autoRead, value: enabled).get()
    }

    public func close() async {
        try? await channel.close()
    }

    /// Returns once the connection is closed, by either side (how a connection's owner learns of a drop at once).
    public func waitUntilClosed() async {
        try? await channel.closeFuture.get()
    }
}
