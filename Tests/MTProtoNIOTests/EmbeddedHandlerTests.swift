import Logging
import MTProto
import NIOCore
import NIOEmbedded
import Testing
@testable import MTProtoNIO

struct EmbeddedHandlerTests {
    @Test func transportHandlerYieldsTheSameFramesByteAtATime() throws {
        var client = try ClientTransportConnection(framing: .abridged, obfuscated: true, rng: SystemRandomNumberGenerator())
        let payloads: [[UInt8]] = [[1, 2, 3, 4], Array(repeating: 9, count: 600), []]
        let stream = payloads.flatMap { client.send($0) }

        let whole = EmbeddedChannel(handler: TransportHandler(connection: ServerTransportConnection(rng: SystemRandomNumberGenerator())))
        try whole.writeInbound(whole.allocator.buffer(bytes: stream))
        let trickle = EmbeddedChannel(handler: TransportHandler(connection: ServerTransportConnection(rng: SystemRandomNumberGenerator())))
        for byte in stream { try trickle.writeInbound(trickle.allocator.buffer(bytes: [byte])) }
        for expected in payloads {
            #expect(try whole.readInbound(as: [UInt8].self) == expected)
            #expect(try trickle.readInbound(as: [UInt8].self) == expected)
        }
        #expect(try whole.readInbound(as: [UInt8].self) == nil)
        _ = try whole.finish()
        _ = try trickle.finish()
    }

    @Test func garbageFirstBytesCloseTheConnection() throws {
        let channel = EmbeddedChannel(handler: TransportHandler(connection: ServerTransportConnection(rng: SystemRandomNumberGenerator())))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let garbage = (0..<64).map { UInt8(($0 * 37 + 11) % 256) }
        _ = try? channel.writeInbound(channel.allocator.buffer(bytes: garbage))
        #expect(!channel.isActive)
    }

    @Test func oversizedFrameClosesTheConnection() throws {
        let channel = EmbeddedChannel(handler: TransportHandler(
            connection: ServerTransportConnection(maximumFrameSize: 1_024, rng: SystemRandomNumberGenerator())))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        _ = try? channel.writeInbound(channel.allocator.buffer(bytes: [0xee, 0xee, 0xee, 0xee, 0x00, 0x10, 0x00, 0x00]))
        #expect(!channel.isActive)
    }

    @Test func serverHandlerClosesOnAGarbageFrameAndAnswersMinus404ForUnknownKeys() throws {
        let rsa = try #require(LoopbackTests.rsa)
        let handler = ServerConnectionHandler(rsaKey: rsa, delegate: InMemoryDelegate(), logger: Logger(label: "test"), now: { 1_700_000_000 })
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound([UInt8](repeating: 0x41, count: 40))   // an "encrypted" packet for an unknown key
        guard case let .transportError(code)? = try channel.readOutbound(as: TransportOutbound.self) else {
            Issue.record("no transport error"); return
        }
        #expect(code == .authKeyNotFound)
        #expect(!channel.isActive)

        let second = EmbeddedChannel(handler: ServerConnectionHandler(rsaKey: rsa, delegate: InMemoryDelegate(),
                                                                      logger: Logger(label: "test"), now: { 1_700_000_000 }))
        try second.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try second.writeInbound([UInt8]([0, 0, 0]))   // too short to name a key
        #expect(!second.isActive)
    }
}
