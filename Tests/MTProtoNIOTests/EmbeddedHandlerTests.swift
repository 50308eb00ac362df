import Logging
import TL
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

struct EmbeddedSessionHandlerTests {
    @Test func pingDelayDisconnectClosesTheConnectionAfterTheDelay() throws {
        let rsa = try #require(LoopbackTests.rsa)
        let delegate = InMemoryDelegate()
        let stored = StoredAuthKey(authKey: try AuthKey(bytes: (0...255).map { UInt8($0) }), salt: 9, createdAt: 1_700_000_000)
        try delegate.store(stored)
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: ServerConnectionHandler(rsaKey: rsa, delegate: delegate, logger: Logger(label: "test"),
                                                                       now: { 1_700_000_000 }), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var client = ClientSession(authKey: stored.authKey, salt: 9, rng: SystemRandomNumberGenerator())
        let ping = client.call(MT.functions.PingDelayDisconnect(pingId: 1, disconnectDelay: 75).serialized(), now: 1_700_000_000)
        try channel.writeInbound(ping.packet)
        #expect(try channel.readOutbound(as: TransportOutbound.self) != nil)   // new_session_created, then the pong
        loop.advanceTime(by: .seconds(74))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test func clientHandlerStartsTheKeyExchangeWhenActive() throws {
        let rsa = try #require(LoopbackTests.rsa)
        let loop = EmbeddedEventLoop()
        let ready = loop.makePromise(of: AuthKeyExchangeResult.self)
        let channel = EmbeddedChannel(handler: ClientConnectionHandler(publicKeys: [rsa.publicKey], dc: 2, existingKey: nil,
                                                                       ready: ready, environment: .seeded(7, now: { 1_700_000_000 })), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        guard case let .payload(first)? = try channel.readOutbound(as: TransportOutbound.self) else {
            Issue.record("nothing sent"); return
        }
        let message = try PlainMessage.decode(first)
        #expect(message.messageID & 3 == 0)
        #expect(try MT.functions.ReqPqMulti.deserialize(message.body).constructorName == "req_pq_multi")
        // A transport error fails the exchange and closes the connection.
        try channel.writeInbound(withUnsafeBytes(of: Int32(-404).littleEndian) { Array($0) })
        #expect(!channel.isActive)
        #expect(throws: (any Error).self) { try ready.futureResult.wait() }
    }
}
