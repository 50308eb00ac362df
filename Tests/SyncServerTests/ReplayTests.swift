import Foundation
import MTProto
import NIOCore
import NIOPosix
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Finding 5 over real sockets: Bob's encrypted `channels.leaveChannel`, captured and sent again on a new TCP
/// connection after he rejoined, used to remove him again. Now the server remembers the msg_ids of his session
/// across connections and refuses it.
@Suite(.timeLimit(.minutes(2)))
struct ReplayTests {
    /// What the server answered to one captured call on a raw connection.
    enum Answer: Equatable {
        case result
        case refused(code: Int32)
    }

    /// Sends `packet` in intermediate framing on a new TCP connection and keeps it open until the server answers the
    /// call in it (`rpc_result`, or a `bad_msg_notification` naming it), or for at most `seconds`. A frame whose
    /// connection closes while the server still waits for a step before it (a session claim under load) is dropped,
    /// so a test that closed at once could see a delivery as a refusal.
    static func sendRaw(_ packet: [UInt8], key: AuthKey, port: Int, seconds: Double = 20) async throws -> Answer? {
        let call = try EncryptedPacket.decrypt(packet, authKey: key, direction: .clientToServer)
        let callID = try MessageContainer.decode(call.body)?.last?.messageID ?? call.messageID
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: [0xee, 0xee, 0xee, 0xee] + withUnsafeBytes(of: UInt32(packet.count).littleEndian, Array.init) + packet))
            return try await withThrowingTaskGroup(of: Answer?.self) { group in
                group.addTask {
                    var received: [UInt8] = []
                    for try await buffer in inbound {
                        received += Array(buffer.readableBytesView)
                        while received.count >= 4 {
                            let length = Int(received.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }.littleEndian)
                            guard received.count >= 4 + length else { break }
                            let frame = Array(received[4..<4 + length])
                            received.removeFirst(4 + length)
                            if let answer = try answer(to: callID, in: frame, key: key) { return answer }
                        }
                    }
                    return nil
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(seconds))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }
    }

    /// The answer to `callID` in one server packet: `rpc_result` (0xf35c6d01) or `bad_msg_notification`
    /// (0xa7eff811), alone or in a container.
    static func answer(to callID: Int64, in frame: [UInt8], key: AuthKey) throws -> Answer? {
        guard frame.count > 4 else { return nil }
        let message = try EncryptedPacket.decrypt(frame, authKey: key, direction: .serverToClient)
        let bodies = try MessageContainer.decode(message.body)?.map(\.body) ?? [message.body]
        for body in bodies {
            var reader = TLReader(body)
            switch try reader.readUInt32() {
            case 0xf35c6d01 where try reader.readInt64() == callID:
                return .result
            case 0xa7eff811 where try reader.readInt64() == callID:
                _ = try reader.readInt32()
                return .refused(code: try reader.readInt32())
            default:
                continue
            }
        }
        return nil
    }

    static func isMember(_ client: TestClient, of channel: API.InputChannel) async throws -> Bool {
        guard case let .chats(chats) = try await client.call(API.functions.channels.GetChannels(id: [channel])),
              case let .channel(value)? = chats.chats.first else { return false }
        return !value.left
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
        let key = bob.connection.key.authKey
        #expect(try await Self.sendRaw(packet, key: key, port: harness.server.port) == .result)
        #expect(try await !Self.isMember(bob, of: news))

        _ = try await bob.call(API.functions.channels.JoinChannel(channel: news))
        // A repeated msg_id is dropped without an answer (its first copy was answered).
        #expect(try await Self.sendRaw(packet, key: key, port: harness.server.port, seconds: 2) == nil)
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
        let key = bob.connection.key.authKey
        #expect(try await Self.sendRaw(packet, key: key, port: first.server.port) == .result)
        #expect(try await !Self.isMember(bob, of: news))
        _ = try await bob.call(API.functions.channels.JoinChannel(channel: news))

        try await Task.sleep(for: .seconds(SessionClaims.slack + 3))
        // Below the floor the second process set when it took the session over: msg_id too low (16).
        #expect(try await Self.sendRaw(packet, key: key, port: second.server.port) == .refused(code: 16))
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
