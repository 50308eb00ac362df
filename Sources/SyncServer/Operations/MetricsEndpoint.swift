import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus

/// `GET /metrics` in the Prometheus text format on its own port (`--metrics-port`); any other path is 404 and
/// any other method 405. A small NIO HTTP/1 server: one handler, no keep-alive bookkeeping beyond NIO's.
final class MetricsEndpoint: Sendable {
    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    var port: Int { channel.localAddress?.port ?? 0 }

    static func start(host: String, port: Int, registry: PrometheusCollectorRegistry, group: any EventLoopGroup) async throws -> MetricsEndpoint {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(registry: registry))
                }
            }
            .bind(host: host, port: port)
            .get()
        return MetricsEndpoint(channel: channel)
    }

    func stop() async throws {
        try await channel.close()
    }
}

private final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: PrometheusCollectorRegistry
    private var request: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head): request = head
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            let (status, body): (HTTPResponseStatus, [UInt8])
            if head.method != .GET {
                (status, body) = (.methodNotAllowed, Array("only GET\n".utf8))
            } else if head.uri.split(separator: "?").first != "/metrics" {
                (status, body) = (.notFound, Array("see /metrics\n".utf8))
            } else {
                (status, body) = (.ok, registry.emitToBuffer())
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: status == .ok ? "text/plain; version=0.0.4" : "text/plain")
            headers.add(name: "Content-Length", value: String(body.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            let keepAlive = head.isKeepAlive
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { context.close(promise: nil) }
            }
        }
    }
}
