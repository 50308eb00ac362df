import MTProtoNIO
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small NIO HTTP/1 server for the server's side doors: `GET` of a few fixed paths (Prometheus metrics on
/// `--metrics-port`, the signed config blob at `--config-url`), each answered by a route computed per request; any
/// other path is 404 and any other method 405.
final class HTTPEndpoint: Sendable {
    /// A route's answer: content type and body.
    typealias Route = @Sendable () -> (contentType: String, body: [UInt8])

    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    var port: Int { channel.localAddress?.port ?? 0 }

    static func start(host: String, port: Int, routes: [String: Route], group: any EventLoopGroup) async throws -> HTTPEndpoint {
        let channel = try await ListenError.naming(host: host, port: port) { try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RoutesHTTPHandler(routes: routes))
                }
            }
            .bind(host: host, port: port)
            .get()
        }
        return HTTPEndpoint(channel: channel)
    }

    func stop() async throws {
        try await channel.close()
    }
}

private final class RoutesHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: [String: HTTPEndpoint.Route]
    private var request: HTTPRequestHead?

    init(routes: [String: HTTPEndpoint.Route]) {
        self.routes = routes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head): request = head
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            let path = String(head.uri.split(separator: "?", omittingEmptySubsequences: false).first ?? "")
            let (status, contentType, body): (HTTPResponseStatus, String, [UInt8])
            if head.method != .GET {
                (status, contentType, body) = (.methodNotAllowed, "text/plain", Array("only GET\n".utf8))
            } else if let route = routes[path] {
                let answer = route()
                (status, contentType, body) = (.ok, answer.contentType, answer.body)
            } else {
                (status, contentType, body) = (.notFound, "text/plain", Array("see \(routes.keys.sorted().joined(separator: ", "))\n".utf8))
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: contentType)
            headers.add(name: "Content-Length", value: String(body.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if !head.isKeepAlive {
                let channel = context.channel
                written.whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}
