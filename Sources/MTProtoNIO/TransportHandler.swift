import MTProto
import NIOCore

/// What the transport handler is asked to write.
public enum TransportOutbound: Sendable {
    case payload([UInt8])
    case transportError(TransportErrorCode)
}

/// Turns socket bytes into frame payloads and payloads into socket bytes, driving a `TransportConnection`
/// (framing, and obfuscation when the connection uses it), and writes what the transport itself owes the peer (a
/// fake-TLS server hello). Malformed framing closes the connection.
public final class TransportHandler<Connection: TransportConnection>: ChannelDuplexHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = [UInt8]
    public typealias OutboundIn = TransportOutbound
    public typealias OutboundOut = ByteBuffer

    private var connection: Connection

    public init(connection: Connection) {
        self.connection = connection
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        do {
            let frames = try connection.receive(bytes)
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
}
