import Foundation
import Logging
import MTProto
import NIOCore
import NIOPosix
import SyncHarness
import Testing
import TL
@testable import MTProtoNIO

/// The PROXY protocol header of a TCP load balancer (versions 1 and 2): parsed bounded, and the client address it names
/// is what the per-address limits count.
struct ProxyProtocolTests {
    /// A version 2 PROXY header for a TCP/IPv4 client (HAProxy's `send-proxy-v2`).
    static func version2(client: [UInt8], port: UInt16 = 40_000) -> [UInt8] {
        let addresses = client + [127, 0, 0, 1] + [UInt8(port >> 8), UInt8(port & 0xff), 0x01, 0xbb]
        return ProxyProtocolHeader.v2Signature + [0x21, 0x11, 0x00, UInt8(addresses.count)] + addresses
    }

    @Test func headersOfBothVersionsAreParsedAndBounded() {
        let v1 = Array("PROXY TCP4 10.1.2.3 127.0.0.1 5000 443\r\n".utf8)
        #expect(ProxyProtocolHeader.parse(v1 + [0xee, 0xee]) == .header(source: "10.1.2.3", length: v1.count))
        #expect(ProxyProtocolHeader.parse(Array(v1.prefix(20))) == .needMore)
        #expect(ProxyProtocolHeader.parse(Array("PROXY TCP6 0:0::1 ::1 5000 443\r\n".utf8)) == .header(source: "::1", length: 32))
        #expect(ProxyProtocolHeader.parse(Array("PROXY UNKNOWN\r\n".utf8)) == .header(source: nil, length: 15))
        #expect(ProxyProtocolHeader.parse(Array("PROXY TCP4 999.1.2.3 127.0.0.1 5000 443\r\n".utf8)) != .needMore)
        if case .header = ProxyProtocolHeader.parse(Array("PROXY TCP4 999.1.2.3 127.0.0.1 5000 443\r\n".utf8)) { Issue.record("a bad address passed") }
        if case .invalid = ProxyProtocolHeader.parse(Array(("PROXY " + String(repeating: "x", count: 200)).utf8)) {} else { Issue.record("a long line passed") }
        if case .invalid = ProxyProtocolHeader.parse([0xee, 0xee, 0xee, 0xee]) {} else { Issue.record("MTProto bytes passed as a header") }

        let v2 = Self.version2(client: [192, 168, 7, 9])
        #expect(ProxyProtocolHeader.parse(v2 + [1, 2, 3]) == .header(source: "192.168.7.9", length: v2.count))
        #expect(ProxyProtocolHeader.parse(Array(v2.prefix(10))) == .needMore)
        #expect(ProxyProtocolHeader.parse(Array(v2.prefix(20))) == .needMore)
        let local = ProxyProtocolHeader.v2Signature + [0x20, 0x00, 0x00, 0x00]
        #expect(ProxyProtocolHeader.parse(local) == .header(source: nil, length: 16))
        let huge = ProxyProtocolHeader.v2Signature + [0x21, 0x11, 0xff, 0xff]
        if case .invalid = ProxyProtocolHeader.parse(huge) {} else { Issue.record("a 64 KiB header was awaited") }
        let ipv6 = ProxyProtocolHeader.v2Signature + [0x21, 0x21, 0x00, 36] + [UInt8](repeating: 0, count: 15) + [1] + [UInt8](repeating: 0, count: 20)
        #expect(ProxyProtocolHeader.parse(ipv6) == .header(source: "::1", length: 52))
    }

    /// A server behind a balancer that sends headers: a client through it makes a key and calls; the per-address cap
    /// counts the address the header names, not the balancer's; a connection without a header is closed.
    @Test func theHeadersAddressIsWhatThePerAddressCapCounts() async throws {
        let rsa = try #require(LoopbackTests.rsa)
        var limits = MTProtoServer.Limits(connectionsPerAddress: 1)
        limits.proxyProtocol = true
        let server = try await MTProtoServer.start(host: "127.0.0.1", port: 0, rsaKey: rsa, limits: limits, delegate: InMemoryDelegate(),
                                                   logger: Logger(label: "test"), group: MultiThreadedEventLoopGroup.singleton)
        let first = try await FaultyRelay.start(targetPort: server.port, seed: 1, rawBytes: true, header: Self.version2(client: [10, 0, 0, 1]))
        let second = try await FaultyRelay.start(targetPort: server.port, seed: 2, rawBytes: true,
                                                 header: Array("PROXY TCP4 10.0.0.2 127.0.0.1 5000 443\r\n".utf8))
        func connect(through relay: FaultyRelay) async throws -> MTProtoClient {
            try await MTProtoClient.connect(host: "127.0.0.1", port: relay.port, framing: .intermediate, publicKeys: [rsa.publicKey],
                                            group: MultiThreadedEventLoopGroup.singleton)
        }
        let alice = try await connect(through: first)
        #expect(try await alice.call(API.functions.help.GetNearestDc()) == .nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)))
        await #expect(throws: (any Error).self) { _ = try await connect(through: first) }   // 10.0.0.1's one connection is taken
        let bob = try await connect(through: second)   // another client address, the same balancer
        #expect(try await bob.call(API.functions.help.GetNearestDc()) == .nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)))
        await #expect(throws: (any Error).self) {
            _ = try await MTProtoClient.connect(host: "127.0.0.1", port: server.port, framing: .intermediate, publicKeys: [rsa.publicKey],
                                                group: MultiThreadedEventLoopGroup.singleton)
        }
        await alice.close()
        await bob.close()
        await first.stop()
        await second.stop()
        try await server.stop()
    }
}
