import Foundation
import MTProto
import NIOCore
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Finding 5 over real sockets: Bob's encrypted `channels.leaveChannel`, captured and sent again on a new TCP
/// connection after he rejoined, used to remove him again. Now the server remembers the msg_ids of his session
/// across connections and refuses it.
@Suite(.timeLimit(.minutes(2)))
struct ReplayTests {
    /// Sends `packet` in intermediate framing on a new TCP connection, then closes it.
    static func sendRaw(_ packet: [UInt8], port: Int) async throws {
        let peer = try await ConnectionLimitTests.RawPeer(port: port, sending: [0xee, 0xee, 0xee, 0xee])
        var frame = withUnsafeBytes(of: UInt32(packet.count).littleEndian, Array.init)
        frame += packet
        try await peer.channel.writeAndFlush(peer.channel.allocator.buffer(bytes: frame)).get()
        try await Task.sleep(for: .milliseconds(300))
        await peer.close()
    }

    static func isMember(_ client: TestClient, of channel: API.InputChannel) async throws -> Bool {
        guard case let .chats(chats) = try await client.call(API.functions.channels.GetChannels(id: [channel])),
              case let .channel(value)? = chats.chats.first else { return false }
        return !value.left
    }

    /// Whether `client` left `channel` within 10 s (the raw connection's packet is handled while the test reads).
    static func leaves(_ client: TestClient, _ channel: API.InputChannel) async throws -> Bool {
        for _ in 0..<100 {
            if !(try await isMember(client, of: channel)) { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func aCapturedLeaveReplayedOnANewConnectionIsRefused() async throws {
        let harness = try await ServerHarness()
        let bob = try await harness.loggedIn(bobPhone)
        let news = try await inputChannel("news", in: bob)
        _ = try await bob.call(API.functions.channels.JoinChannel(channel: news))
        #expect(try await Self.isMember(bob, of: news))

        // Bob's own key, his session: the packet an eavesdropper records.
        var session = ClientSession(authKey: bob.connection.key.authKey, salt: bob.connection.key.serverSalt, rng: SystemRandomNumberGenerator())
        let leave = API.functions.InvokeWithLayer(layer: 229, query: API.functions.channels.LeaveChannel(channel: news)).serialized()
        let packet = session.call(leave, now: Date().timeIntervalSince1970).packet
        try await Self.sendRaw(packet, port: harness.server.port)
        // Under the whole suite's load the first (genuine) delivery may take longer than the raw connection stays open.
        #expect(try await Self.leaves(bob, news))

        _ = try await bob.call(API.functions.channels.JoinChannel(channel: news))
        try await Self.sendRaw(packet, port: harness.server.port)
        #expect(try await Self.isMember(bob, of: news))
        await bob.close()
        try await harness.stop()
    }

    /// Two processes on one database, each with its own replay windows: the packet the first executed, sent to the
    /// second a few seconds later, is refused there (the second took the session over with a floor), while Bob's own
    /// new connection to the second works.
    @Test(.enabled(if: TestPostgres.url != nil)) func aPacketReplayedToAnotherProcessIsRefused() async throws {
        let database = try await TestPostgres.createDatabase()
        let first = try await ServerHarness(backend: .postgres, postgresURL: database)
        let second = try await ServerHarness(backend: .postgres, postgresURL: database)
        let bob = try await first.loggedIn(bobPhone)
        let news = try await inputChannel("news", in: bob)
        _ = try await bob.call(API.functions.channels.JoinChannel(channel: news))

        var session = ClientSession(authKey: bob.connection.key.authKey, salt: bob.connection.key.serverSalt, rng: SystemRandomNumberGenerator())
        let leave = API.functions.InvokeWithLayer(layer: 229, query: API.functions.channels.LeaveChannel(channel: news)).serialized()
        // Its msg_id a second ahead (a client clock may run ahead), so that a first process slow to claim under load
        // still takes it; the second gets it when its floor (arrival less the slack) has passed that second.
        let packet = session.call(leave, now: Date().timeIntervalSince1970 + 1).packet
        try await Self.sendRaw(packet, port: first.server.port)
        #expect(try await Self.leaves(bob, news))
        _ = try await bob.call(API.functions.channels.JoinChannel(channel: news))

        try await Task.sleep(for: .seconds(SessionClaims.slack + 3))
        try await Self.sendRaw(packet, port: second.server.port)
        #expect(try await Self.isMember(bob, of: news), "the replay was executed by the second process")
        let elsewhere = try await TestClient(port: second.server.port, publicKey: second.server.keys.rsaKey.publicKey,
                                             existingKey: bob.connection.key, inspector: checkPeerReferences)
        #expect(try await Self.isMember(elsewhere, of: news))
        await elsewhere.close()
        await bob.close()
        try await second.stop()
        try await first.stop()
    }
}
