import NIOCore
import NIOHTTP1
import NIOPosix

/// Why an HTTP fetch failed.
public enum HTTPFetchError: Error, Equatable, Sendable {
    /// Only `http://host[:port]/path` is supported (no TLS in this fetcher).
    case unsupportedURL(String)
    case status(Int)
    case tooLarge(limit: Int)
    case timedOut
    case closedEarly
}

/// A plain-HTTP URL, `http://host[:port]/path`: where a config blob is fetched from (client) and served (server).
public struct PlainHTTPURL: Equatable, Sendable {
    public var host: String
    public var port: Int
    public var path: String

    public init(_ url: String) throws(HTTPFetchError) {
        guard url.hasPrefix("http://") else { throw .unsupportedURL(url) }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { throw .unsupportedURL(url) }
        port = 80
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...65_535).contains(given) else { throw .unsupportedURL(url) }
            port = given
        }
        self.host = String(host)
        self.path = path.isEmpty ? "/" : String(path)
    }
}

/// One plain-HTTP GET of a small text document (a signed config blob), on NIO's HTTP/1 codecs. Every wait is
/// bounded by `timeout`; bodies above `limit` bytes are refused. `https` is refused as unsupported: a signed blob
/// needs no transport security, and fetching one over TLS would add a TLS stack to the client.
enum HTTPTextFetch {
    static func get(_ url: String, timeout: TimeAmount, limit: Int = 64 * 1024, group: any EventLoopGroup) async throws -> String {
        let target = try PlainHTTPURL(url)
        let eventLoop = group.next()
        let done = eventLoop.makePromise(of: String.self)
        let deadline = eventLoop.scheduleTask(in: timeout) { done.fail(HTTPFetchError.timedOut) }
        defer { deadline.cancel() }
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(ResponseCollector(done: done, limit: limit))
                    }
                }
                .connect(host: target.host, port: target.port)
                .get()
        } catch {
            done.fail(error)
            throw error
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(target.host):\(target.port)")
        headers.add(name: "Connection", value: "close")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.path, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        do {
            let text = try await withTaskCancellationHandler {
                try await done.futureResult.get()
            } onCancel: {
                done.fail(CancellationError())
            }
            try? await channel.close()
            return text
        } catch {
            try? await channel.close()
            throw error
        }
    }
}

/// Gathers one response's body; fails on a non-200 status, a body over the limit or an early close.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let done: EventLoopPromise<String>
    private let limit: Int
    private var body: [UInt8] = []

    init(done: EventLoopPromise<String>, limit: Int) {
        self.done = done
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            if head.status != .ok { fail(.status(Int(head.status.code)), context: context) }
        case var .body(buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
            if body.count > limit { fail(.tooLarge(limit: limit), context: context) }
        case .end:
            done.succeed(String(decoding: body, as: UTF8.self))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(HTTPFetchError.closedEarly)   // ignored when the response already completed it
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.close(promise: nil)
    }

    private func fail(_ error: HTTPFetchError, context: ChannelHandlerContext) {
        done.fail(error)
        context.close(promise: nil)
    }
}
