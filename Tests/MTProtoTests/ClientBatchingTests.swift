import MTProto
import SyncTesting
import TL
import Testing

/// The client session sends fewer packets: calls queued together share one `msg_container`, acknowledgements ride
/// in the next packet, and a notice about a container reaches every call inside it. Checked against the real
/// server session.
struct ClientBatchingTests {
    static let getConfig = API.functions.help.GetConfig().serialized()
    static let getState = API.functions.updates.GetState().serialized()

    /// A client and a server session that have exchanged one call, so salts and session ids agree.
    static func connectedPair() -> (ClientSession<SplitMix64>, ServerSession<SplitMix64>) {
        var client = ClientSession(authKey: SessionHarness.authKey, salt: 0x5a17, rng: SplitMix64(seed: 90))
        var server = ServerSession(authKey: SessionHarness.authKey, salt: 0x5a17, createdAt: Int32(SessionHarness.now), rng: SplitMix64(seed: 91))
        _ = server.receive(client.call(getConfig, now: SessionHarness.now).packet, now: SessionHarness.now)
        return (client, server)
    }

    /// Messages in a client packet, container opened.
    static func opened(_ packet: [UInt8]) throws -> [ContainedMessage] {
        let message = try EncryptedPacket.decrypt(packet, authKey: SessionHarness.authKey, direction: .clientToServer)
        return try MessageContainer.decode(message.body)
            ?? [ContainedMessage(messageID: message.messageID, seqno: message.seqno, body: message.body)]
    }

    @Test func callsQueuedTogetherShareOnePacketWithTheOwedAcknowledgement() throws {
        var (client, server) = Self.connectedPair()
        let push = server.push(API.Updates.updatesTooLong(.init()).serialized(), now: SessionHarness.now)
        let pushID = try SessionHarness.open(push).messageID
        _ = client.receive(push, now: SessionHarness.now)
        #expect(client.owesAcknowledgements)

        let (tokens, packet) = client.send(calls: [Self.getConfig, Self.getState], now: SessionHarness.now)
        #expect(tokens.count == 2 && Set(tokens).count == 2)
        #expect(!client.owesAcknowledgements)
        let inside = try Self.opened(packet)
        #expect(inside.map(\.body).prefix(2) == [Self.getConfig, Self.getState])
        #expect(inside.map(\.seqno).map { $0 & 1 } == [1, 1, 0])   // two calls, then the ack (not content-related)
        guard case let .msgsAck(ack)? = try? MT.MsgsAck.deserialize(inside[2].body) else {
            Issue.record("no msgs_ack in the container"); return
        }
        #expect(ack.msgIds == [pushID])
        #expect(SessionHarness.invocations(server.receive(packet, now: SessionHarness.now)).count == 2)
    }

    @Test func owedAcknowledgementsGoAloneWhenNothingElseIsSent() throws {
        var (client, server) = Self.connectedPair()
        #expect(!client.owesAcknowledgements)
        for _ in 0..<3 {
            _ = client.receive(server.push(API.Updates.updatesTooLong(.init()).serialized(), now: SessionHarness.now),
                               now: SessionHarness.now)
        }
        #expect(client.owedAcknowledgementCount == 3)
        let flushed = client.flushAcknowledgements(now: SessionHarness.now)
        let packet = try #require(flushed)
        let inside = try Self.opened(packet)
        #expect(inside.count == 1)
        guard case let .msgsAck(ack)? = try? MT.MsgsAck.deserialize(inside[0].body) else { Issue.record("not an ack"); return }
        #expect(ack.msgIds.count == 3)
        #expect(client.flushAcknowledgements(now: SessionHarness.now) == nil)
        // The server takes it without an answer.
        #expect(server.receive(packet, now: SessionHarness.now).isEmpty)
    }

    @Test func aWrongSaltOnAContainerResendsEveryCallInIt() throws {
        var client = ClientSession(authKey: SessionHarness.authKey, salt: 1, rng: SplitMix64(seed: 92))
        var server = ServerSession(authKey: SessionHarness.authKey, salt: 0x5a17, createdAt: Int32(SessionHarness.now), rng: SplitMix64(seed: 93))
        let (tokens, packet) = client.send(calls: [Self.getConfig, Self.getState], now: SessionHarness.now)
        let refusal = server.receive(packet, now: SessionHarness.now)
        #expect(SessionHarness.invocations(refusal).isEmpty)
        var resent: [[UInt8]] = []
        for case let .send(answer) in refusal {
            for event in client.receive(answer, now: SessionHarness.now) {
                if case let .send(packet) = event { resent.append(packet) }
            }
        }
        #expect(client.salt == 0x5a17)
        #expect(resent.count == 1)
        let retried = try resent.flatMap { try Self.opened($0) }.map(\.body).filter { $0 == Self.getConfig || $0 == Self.getState }
        #expect(retried.sorted { $0.count < $1.count } == [Self.getConfig, Self.getState].sorted { $0.count < $1.count })
        let invoked = resent.flatMap { SessionHarness.invocations(server.receive($0, now: SessionHarness.now)) }
        #expect(invoked.count == 2)
        #expect(client.pendingTokens == tokens.sorted())
    }
}

/// The server's side of the same economy: answers queued together leave in containers of bounded size.
struct ServerAnswerBatchingTests {
    @Test func queuedAnswersShareContainersWithinTheLimits() throws {
        var (client, server) = ClientBatchingTests.connectedPair()
        let limit = ServerSession<SplitMix64>.containerLimit.messages
        let requests = (0..<(limit + 6)).map { _ in client.call(ClientBatchingTests.getState, now: SessionHarness.now) }
        var invoked: [IncomingRPC] = []
        for request in requests { invoked += SessionHarness.invocations(server.receive(request.packet, now: SessionHarness.now)) }
        #expect(invoked.count == requests.count)
        for rpc in invoked {
            server.queueResult(to: rpc.messageID, result: .success(API.Updates.updatesTooLong(.init()).serialized()))
        }
        // One large (incompressible) answer among them leaves alone.
        var rng = SplitMix64(seed: 94)
        let large = RandomBytes.make(ServerSession<SplitMix64>.containerLimit.bytes + 4, using: &rng)
        server.queueResult(to: invoked[0].messageID, result: .success(large))
        let packets = server.sealQueued(now: SessionHarness.now)
        #expect(packets.count == 3)   // limit answers, then the other 6, then the large one
        let messages = try packets.map { try SessionHarness.open($0) }
        #expect(try MessageContainer.decode(messages[0].body)?.count == limit)
        #expect(try MessageContainer.decode(messages[1].body)?.count == 6)
        #expect(try MessageContainer.decode(messages[2].body) == nil)
        #expect(server.sealQueued(now: SessionHarness.now).isEmpty)

        var answered = Set<Int>()
        for packet in packets {
            for case let .result(token, .success) in client.receive(packet, now: SessionHarness.now) { answered.insert(token) }
        }
        #expect(answered == Set(requests.map(\.token)))
    }
}
