import MTProto
import NIOCore

/// Sent down the pipeline by the session handler when its connection finished a key exchange or carries a key the
/// server knows: from then on it is a client's connection, not a stranger's.
public struct ConnectionEstablished: Sendable {
    public init() {}
}

/// What the transport handler is asked to write.
public enum TransportOutbound: Sendable {
    case payload([UInt8])
    case transportError(TransportErrorCode)
}

/// Turns socket bytes into frame payloads and payloads into socket bytes, driving a `TransportConnection`
/// (framing, and obfuscation when the connection uses it), and writes what the transport itself owes the peer (a
/// fake-TLS server hello). Malformed framing closes the connection, and so does a peer past its `ReadDeadline`
/// (server role).
public final class TransportHandler<Connection: TransportConnection>: ChannelDuplexHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = [UInt8]
    public typealias OutboundIn = TransportOutbound
    public typealias OutboundOut = ByteBuffer

    private var connection: Connection
    private let readLimits: ReadDeadline.Limits?
    /// Told once the connection is established (`ConnectionEstablished`): the server's connection table.
    private let onEstablished: (@Sendable () -> Void)?
    private var readDeadline: ReadDeadline?
    /// One timer at a time: when it fires early (frames came meanwhile) it is armed again for the new deadline, so
    /// reads touch it only when the deadline comes nearer (a frame left unfinished).
    private var timer: Scheduled<Void>?
    private var armedFor = Double.infinity
    /// Monotonic seconds (the environment's `uptime`): what the read deadlines count in.
    private let uptime: @Sendable () -> Double

    public init(connection: Connection, readDeadline: ReadDeadline.Limits? = nil, onEstablished: (@Sendable () -> Void)? = nil,
                environment: SyncEnvironment = .live) {
        self.connection = connection
        uptime = environment.uptime
        readLimits = readDeadline
        self.onEstablished = onEstablished
    }

    /// `ConnectionEstablished` from the session handler: the key-exchange deadline no longer applies (the timer, if
    /// armed for it, finds a later deadline when it fires and is armed again).
    public func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if event is ConnectionEstablished {
            readDeadline?.established()
            onEstablished?()
            promise?.succeed(())
            return
        }
        context.triggerUserOutboundEvent(event, promise: promise)
    }

    private var now: Double { uptime() }

    public func channelActive(context: ChannelHandlerContext) {
        if let readLimits {
            readDeadline = ReadDeadline(limits: readLimits, now: now)
            armTimer(context: context)
        }
        context.fireChannelActive()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        do {
            let frames = try connection.receive(bytes)
            if var deadline = readDeadline {
                deadline.received(frames: frames.count, partial: connection.hasPartialFrame, now: now)
                readDeadline = deadline
                if deadline.deadline < armedFor {
                    timer?.cancel()
                    armTimer(context: context)
                }
            }
            let reply = connection.takeReply()   // a fake-TLS server hello leaves before any answer to these frames
            if !reply.isEmpty { context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: reply)), promise: nil) }
            for frame in frames {
                context.fireChannelRead(wrapInboundOut(frame))
            }
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes: [UInt8]
        switch unwrapOutboundIn(data) {
        case let .payload(payload): bytes = connection.send(payload)
        case let .transportError(code): bytes = connection.send(error: code)
        }
        context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: promise)
    }

    private func armTimer(context: ChannelHandlerContext) {
        guard let readDeadline else { return }
        armedFor = readDeadline.deadline
        // The deadline counts in the environment's uptime; the event loop's timer, in its own clock: armed for the
        // time left.
        let left = TimeAmount.nanoseconds(Int64(max(0, min(armedFor - now, 86_400)) * 1e9))
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: left) {
            let (handler, context) = bound.value
            guard let deadline = handler.readDeadline, context.channel.isActive else { return }
            if deadline.hasExpired(at: handler.now) {
                context.close(promise: nil)
            } else {
                handler.armTimer(context: context)
            }
        }
    }
}
