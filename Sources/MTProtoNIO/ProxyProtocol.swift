#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore

/// The PROXY protocol header a TCP load balancer puts before a connection's bytes (HAProxy's "PROXY protocol" spec,
/// versions 1 and 2; HAProxy's `send-proxy` / `send-proxy-v2`, nginx's `proxy_protocol on`): behind a balancer every
/// connection comes from the balancer's address, and the per-address limits (connections, key exchanges) would count
/// all clients as one. With the header they count the client's address. Parsed sans I/O, bounded before anything is
/// kept: version 1 is one line of at most 107 bytes, version 2 at most `maximumLength`.
public enum ProxyProtocolHeader {
    public enum Parsed: Equatable, Sendable {
        /// The bytes so far are the start of a header.
        case needMore
        /// A header of `length` bytes naming the client's address (nil: the balancer's own connection, a health
        /// check, or an address family without one).
        case header(source: String?, length: Int)
        case invalid(String)
    }

    static let v2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    static let v1Prefix = Array("PROXY ".utf8)
    static let v1MaximumLength = 107
    /// A version 2 header with more than this (addresses and TLVs) is refused.
    public static let maximumLength = 1_024

    public static func parse(_ bytes: [UInt8]) -> Parsed {
        if bytes.starts(with: v2Signature.prefix(bytes.count)), !bytes.isEmpty, bytes[0] == v2Signature[0] {
            return parseVersion2(bytes)
        }
        guard bytes.starts(with: v1Prefix.prefix(bytes.count)) else {
            return .invalid("the connection does not start with a PROXY protocol header")
        }
        return parseVersion1(bytes)
    }

    private static func parseVersion1(_ bytes: [UInt8]) -> Parsed {
        guard let end = bytes.indices.dropFirst().first(where: { bytes[$0 - 1] == 0x0D && bytes[$0] == 0x0A }) else {
            return bytes.count >= v1MaximumLength ? .invalid("a PROXY line longer than 107 bytes") : .needMore
        }
        guard end < v1MaximumLength else { return .invalid("a PROXY line longer than 107 bytes") }
        let fields = String(decoding: bytes[..<(end - 1)], as: UTF8.self).split(separator: " ").map(String.init)
        guard fields.count >= 2 else { return .invalid("a PROXY line without a protocol") }
        switch fields[1] {
        case "UNKNOWN":
            return .header(source: nil, length: end + 1)
        case "TCP4", "TCP6":
            guard fields.count == 6, let port = Int(fields[4]), (0...65_535).contains(port), Int(fields[5]).map({ (0...65_535).contains($0) }) == true,
                  let source = normalized(fields[2], family: fields[1] == "TCP4" ? AF_INET : AF_INET6)
            else { return .invalid("a PROXY line with a malformed address") }
            return .header(source: source, length: end + 1)
        default:
            return .invalid("a PROXY line with an unknown protocol")
        }
    }

    private static func parseVersion2(_ bytes: [UInt8]) -> Parsed {
        guard bytes.count >= 16 else { return .needMore }
        let length = 16 + Int(bytes[14]) << 8 + Int(bytes[15])
        guard bytes[12] >> 4 == 2 else { return .invalid("a PROXY version 2 header of another version") }
        guard length <= maximumLength else { return .invalid("a PROXY version 2 header longer than \(maximumLength) bytes") }
        guard bytes.count >= length else { return .needMore }
        switch bytes[12] & 0x0F {
        case 0:   // LOCAL: the balancer's own connection (a health check)
            return .header(source: nil, length: length)
        case 1:
            switch bytes[13] >> 4 {
            case 1 where length >= 16 + 12: return .header(source: text(Array(bytes[16..<20]), family: AF_INET), length: length)
            case 2 where length >= 16 + 36: return .header(source: text(Array(bytes[16..<32]), family: AF_INET6), length: length)
            case 1, 2: return .invalid("a PROXY version 2 header too short for its addresses")
            default: return .header(source: nil, length: length)   // unspecified or Unix: no client address
            }
        default:
            return .invalid("a PROXY version 2 header with an unknown command")
        }
    }

    /// The address in the form `SocketAddress.ipAddress` gives, nil when it is not one of `family`.
    private static func normalized(_ text: String, family: Int32) -> String? {
        var storage = [UInt8](repeating: 0, count: 16)
        guard inet_pton(family, text, &storage) == 1 else { return nil }
        return self.text(Array(storage.prefix(family == AF_INET ? 4 : 16)), family: family)
    }

    private static func text(_ address: [UInt8], family: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        guard inet_ntop(family, address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A connection's client address: the socket's peer, or the one a PROXY protocol header named
/// (`ProxyProtocolHandler`). Read and written on the connection's event loop only.
public final class ClientAddress: @unchecked Sendable {
    public internal(set) var value: String

    init(_ value: String) {
        self.value = value
    }
}

/// Reads a connection's PROXY protocol header, records the client address it names, and hands the rest of the bytes on
/// before leaving the pipeline. A connection that does not start with a header is closed: a server behind a
/// balancer that sends headers must not be reachable around it (`identify` decides on the address: the per-address
/// connection limit).
final class ProxyProtocolHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var received: [UInt8] = []
    private let address: ClientAddress
    private let identify: (String) -> Bool
    private let logger: Logger

    init(address: ClientAddress, logger: Logger, identify: @escaping (String) -> Bool) {
        self.address = address
        self.logger = logger
        self.identify = identify
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let taken = buffer.readableBytesView.prefix(ProxyProtocolHeader.maximumLength + 1 - received.count)
        received += taken
        switch ProxyProtocolHeader.parse(received) {
        case .needMore:
            if received.count > ProxyProtocolHeader.maximumLength { context.close(promise: nil) }
        case let .invalid(reason):
            logger.debug("closing a connection: \(reason)", metadata: ["peer": "\(address.value)"])
            context.close(promise: nil)
        case let .header(source, length):
            if let source { address.value = source }
            guard identify(address.value) else { return context.close(promise: nil) }
            // What followed the header: the rest of what was kept, then what this read held beyond it.
            var rest = context.channel.allocator.buffer(capacity: received.count - length + buffer.readableBytes - taken.count)
            rest.writeBytes(received[length...])
            if let more = buffer.getSlice(at: buffer.readerIndex + taken.count, length: buffer.readableBytes - taken.count) {
                rest.writeImmutableBuffer(more)
            }
            received = []
            if rest.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(rest)) }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
