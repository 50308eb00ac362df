import MTProto
import SyncTesting
import Foundation
import Testing
import TL
@testable import MTProto

/// Plays the client side of an encrypted session against `ServerSession`.
struct SessionHarness {
    static let authKey = try! AuthKey(bytes: (0...255).map { UInt8(($0 * 7 + 3) % 256) })
    static let now = 1_700_000_000.0
    var server = ServerSession(authKey: authKey, salt: 0x5a17, createdAt: Int32(now), rng: SplitMix64(seed: 50))
    var ids = MessageIDGenerator()
    var seqno = SequenceNumberGenerator()
    var rng = SplitMix64(seed: 51)
    var salt: Int64 = 0
    let sessionID: Int64 = 0x1234

    mutating func send(_ body: [UInt8], messageID: Int64? = nil, contentRelated: Bool = true,
                       now: Double = now) -> (id: Int64, events: [ServerSessionEvent]) {
        let id = messageID ?? ids.next(.client, now: now)
        let message = DecryptedMessage(salt: salt, sessionID: sessionID, messageID: id, seqno: seqno.next(contentRelated: contentRelated), body: body)
        let packet = EncryptedPacket.encrypt(message, authKey: Self.authKey, direction: .clientToServer, using: &rng)
        return (id, server.receive(packet, now: now))
    }

    /// Decrypts what the server sent, unpacking gzip_packed results.
    static func open(_ packet: [UInt8]) throws -> DecryptedMessage {
        try EncryptedPacket.decrypt(packet, authKey: authKey, direction: .serverToClient)
    }

    /// Every message the server sent, containers opened.
    static func sent(_ events: [ServerSessionEvent]) throws -> [DecryptedMessage] {
        let packets = try events.compactMap { if case let .send(packet) = $0 { return try open(packet) } else { return nil } }
        return try packets.flatMap { packet -> [DecryptedMessage] in
            guard let inner = try MessageContainer.decode(packet.body) else { return [packet] }
            return inner.map { DecryptedMessage(salt: packet.salt, sessionID: packet.sessionID, messageID: $0.messageID, seqno: $0.seqno, body: $0.body) }
        }
    }

    static func invocations(_ events: [ServerSessionEvent]) -> [IncomingRPC] {
        events.compactMap { if case let .invoke(rpc) = $0 { return rpc } else { return nil } }
    }
}

struct ServerSessionTests {
    static let initConnection = API.functions.InvokeWithLayer(layer: 229, query: API.functions.InitConnection(
        apiId: 1, deviceModel: "test", systemVersion: "1", appVersion: "1", systemLangCode: "en", langPack: "", langCode: "en",
        query: API.functions.help.GetConfig()))

    @Test func firstMessageGetsNewSessionAndBadSaltThenTheResendIsInvoked() throws {
        var harness = SessionHarness()
        let (firstID, first) = harness.send(Self.initConnection.serialized())
        let replies = try SessionHarness.sent(first)
        #expect(SessionHarness.invocations(first).isEmpty)
        #expect(replies.count == 2)
        guard case let .newSessionCreated(created) = try MT.NewSession.deserialize(replies[0].body),
              case let .badServerSalt(badSalt) = try MT.BadMsgNotification.deserialize(replies[1].body)
        else { Issue.record("expected new_session_created and bad_server_salt"); return }
        #expect(created.firstMsgId == firstID)
        #expect(badSalt.badMsgId == firstID && badSalt.errorCode == 48 && badSalt.newServerSalt == 0x5a17)
        #expect(replies.allSatisfy { $0.sessionID == harness.sessionID && $0.messageID & 3 != 0 })

        harness.salt = badSalt.newServerSalt
        let (secondID, second) = harness.send(Self.initConnection.serialized())
        let rpc = try #require(SessionHarness.invocations(second).first)
        #expect(rpc.messageID == secondID)
        #expect(rpc.layer == 229)
        #expect(rpc.connection?.apiId == 1)
        #expect(rpc.function.constructorName == "help.getConfig")
        #expect(!rpc.withoutUpdates)
    }

    /// Pushes that pile up and cannot be one `Updates` leave in one container: each its own server-initiated message
    /// with its own content-related seqno, in one packet.
    @Test func severalPushesLeaveInOneContainer() throws {
        var harness = SessionHarness()
        _ = harness.send(Self.initConnection.serialized())   // the session exists
        let bodies = (1...3).map { index in API.Updates.updateShort(.init(update: .updateUserStatus(.init(
            userId: Int64(index), status: .userStatusEmpty(.init()))), date: 1)).serialized() }
        let packets = harness.server.push(bodies, now: SessionHarness.now)
        #expect(packets.count == 1)
        let packet = try SessionHarness.open(try #require(packets.first))
        let inner = try #require(try MessageContainer.decode(packet.body))
        #expect(inner.map(\.body) == bodies)
        #expect(inner.allSatisfy { $0.messageID & 3 == 3 && $0.seqno & 1 == 1 })
        #expect(Set(inner.map(\.seqno)).count == 3)
    }

    @Test func containersGzipPingsAndAcks() throws {
        var harness = SessionHarness()
        harness.salt = 0x5a17
        var ids = MessageIDGenerator()
        let pingID = ids.next(.client, now: SessionHarness.now)
        let stateID = ids.next(.client, now: SessionHarness.now)
        let ackID = ids.next(.client, now: SessionHarness.now)
        let packedCall = GzipPacked.pack(API.functions.InvokeWithoutUpdates(query: API.functions.updates.GetState()).serialized())
        let container = MessageContainer.encode([
            ContainedMessage(messageID: pingID, seqno: 1, body: MT.functions.Ping(pingId: 99).serialized()),
            ContainedMessage(messageID: stateID, seqno: 3, body: packedCall),
            ContainedMessage(messageID: ackID, seqno: 4, body: MT.MsgsAck.msgsAck(.init(msgIds: [1, 2])).serialized()),
        ])
        // Like a real client, the container is numbered after its two content-related messages: seqno 4.
        _ = harness.seqno.next(contentRelated: true)
        _ = harness.seqno.next(contentRelated: true)
        let (_, events) = harness.send(container, messageID: ids.next(.client, now: SessionHarness.now), contentRelated: false)
        let replies = try SessionHarness.sent(events)
        let pongs = replies.compactMap { try? MT.Pong.deserialize($0.body) }
        #expect(pongs == [.pong(.init(msgId: pingID, pingId: 99))])
        let rpc = try #require(SessionHarness.invocations(events).first)
        #expect(rpc.messageID == stateID && rpc.withoutUpdates && rpc.function.constructorName == "updates.getState")
    }

    @Test func badMessageIDsAreReportedWithTheSpecCodes() throws {
        var harness = SessionHarness()
        harness.salt = 0x5a17
        let call = API.functions.updates.GetState().serialized()
        let now = SessionHarness.now
        let cases: [(Int64, Int32)] = [
            ((Int64(now) - 400) << 32, 16), ((Int64(now) + 60) << 32, 17), ((Int64(now) << 32) | 2, 18),
        ]
        _ = harness.send(call)   // the session exists now
        for (messageID, code) in cases {
            let (_, events) = harness.send(call, messageID: messageID)
            let notices = try SessionHarness.sent(events).compactMap { try? MT.BadMsgNotification.deserialize($0.body) }
            guard case let .badMsgNotification(notice)? = notices.first else { Issue.record("no notice for \(code)"); continue }
            #expect(notice.errorCode == code && notice.badMsgId == messageID)
            #expect(SessionHarness.invocations(events).isEmpty)
        }
        let (replayed, _) = harness.send(call)
        let (_, replay) = harness.send(call, messageID: replayed)
        #expect(SessionHarness.invocations(replay).isEmpty)
        // A duplicated packet (the same id again) is ignored without a notice: the first copy's answer stands, and a
        // notice made the client fail a call the server carried out (found by the fault simulation's duplicates).
        #expect(try SessionHarness.sent(replay).compactMap { try? MT.BadMsgNotification.deserialize($0.body) }.isEmpty)
    }

    @Test func severalAnswersToOnePacketTravelInOneContainer() throws {
        var harness = SessionHarness()
        let (_, events) = harness.send(API.functions.updates.GetState().serialized())
        let packets = events.compactMap { if case let .send(packet) = $0 { return packet } else { return nil } }
        #expect(packets.count == 1)
        let outer = try SessionHarness.open(try #require(packets.first))
        let inner = try #require(try MessageContainer.decode(outer.body))
        #expect(inner.count == 2)   // new_session_created and bad_server_salt
        #expect(outer.seqno & 1 == 0 && inner[0].seqno & 1 == 1 && inner[1].seqno & 1 == 0)
    }

    @Test func seqnoOrderIsChecked() throws {
        var harness = SessionHarness()
        harness.salt = 0x5a17
        var ids = MessageIDGenerator()
        let call = API.functions.updates.GetState().serialized()
        let early = ids.next(.client, now: SessionHarness.now)
        let late = ids.next(.client, now: SessionHarness.now)
        // The later msg_id goes first with a high seqno; the earlier one then arrives with a higher seqno still.
        harness.seqno = SequenceNumberGenerator()
        for _ in 0..<5 { _ = harness.seqno.next(contentRelated: true) }
        _ = harness.send(call, messageID: late)
        let (_, events) = harness.send(call, messageID: early)
        let notice = try SessionHarness.sent(events).compactMap { try? MT.BadMsgNotification.deserialize($0.body) }.first
        guard case let .badMsgNotification(value)? = notice else { Issue.record("no notice"); return }
        #expect(value.errorCode == 33 && value.badMsgId == early)

        var validator = SequenceNumberValidator()
        #expect(validator.check(messageID: 100, seqno: 5) == nil)
        #expect(validator.check(messageID: 104, seqno: 3) == .seqnoTooLow)
        #expect(validator.check(messageID: 104, seqno: 5) == .seqnoTooLow)   // same odd seqno
        #expect(validator.check(messageID: 96, seqno: 7) == .seqnoTooHigh)
        #expect(validator.check(messageID: 104, seqno: 6) == nil)
        #expect(validator.check(messageID: 108, seqno: 6) == nil)            // same even seqno is fine
    }

    @Test func seqnoParityIsChecked() throws {
        var harness = SessionHarness()
        harness.salt = 0x5a17
        let (callID, call) = harness.send(API.functions.updates.GetState().serialized(), contentRelated: false)
        let callNotice = try SessionHarness.sent(call).compactMap { try? MT.BadMsgNotification.deserialize($0.body) }.first
        #expect(callNotice == .badMsgNotification(.init(badMsgId: callID, badMsgSeqno: 0, errorCode: 35)))
        #expect(SessionHarness.invocations(call).isEmpty)
        let container = MessageContainer.encode([ContainedMessage(messageID: harness.ids.next(.client, now: SessionHarness.now), seqno: 3,
                                                                  body: API.functions.updates.GetState().serialized())])
        let (containerID, events) = harness.send(container, contentRelated: true)
        let notice = try SessionHarness.sent(events).compactMap { try? MT.BadMsgNotification.deserialize($0.body) }.first
        #expect(notice == .badMsgNotification(.init(badMsgId: containerID, badMsgSeqno: 1, errorCode: 34)))
    }

    /// A widely used client opens each session with a `ping` whose seqno is even: it is answered, as Telegram does.
    @Test func aPingWithAnEvenSeqnoIsAnswered() throws {
        var harness = SessionHarness()
        harness.salt = 0x5a17
        let (pingID, events) = harness.send(MT.functions.Ping(pingId: 77).serialized(), contentRelated: false)
        let pongs = try SessionHarness.sent(events).compactMap { try? MT.Pong.deserialize($0.body) }
        #expect(pongs == [.pong(.init(msgId: pingID, pingId: 77))])
        #expect(try SessionHarness.sent(events).allSatisfy { (try? MT.BadMsgNotification.deserialize($0.body)) == nil })
    }

    /// A layer-229 function outside the modelled subset reaches the server by name, inside its wrappers, with its
    /// arguments kept byte for byte; an id no layer function has is still refused as invalid.
    @Test func aLayerFunctionOutsideTheSubsetIsInvokedByName() throws {
        var harness = SessionHarness()
        harness.salt = 0x5a17
        let arguments: [UInt8] = [0x15, 0xc4, 0xb5, 0x1c, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
        let reaction = TLOpaqueFunction(id: 0xd30d_78d4, name: "messages.sendReaction", arguments: arguments)
        let wrapped = API.functions.InvokeWithLayer(layer: 229, query: API.functions.InitConnection(
            apiId: 1, deviceModel: "test", systemVersion: "1", appVersion: "1", systemLangCode: "en", langPack: "", langCode: "en",
            query: API.functions.InvokeWithoutUpdates(query: reaction)))
        let (_, events) = harness.send(wrapped.serialized())
        let rpc = try #require(SessionHarness.invocations(events).first)
        #expect(rpc.function.constructorName == "messages.sendReaction" && rpc.layer == 229 && rpc.withoutUpdates)
        #expect(rpc.function.serialized() == reaction.serialized())
        #expect(API.layerFunctionNames.count == 813 && API.layerFunctionNames[API.functions.messages.SendMessage.constructorID] == "messages.sendMessage")
    }

    @Test func resultsAreWrappedGzippedWhenLargeButErrorsNeverAre() throws {
        var harness = SessionHarness()
        let large = [UInt8](repeating: 7, count: 4_000)
        let result = try SessionHarness.open(harness.server.respond(to: 42, result: .success(large), now: SessionHarness.now))
        var reader = TLReader(result.body)
        #expect(try reader.readUInt32() == TLBuiltinID.rpcResult)
        #expect(try reader.readInt64() == 42)
        #expect(try GzipPacked.unpack(Array(result.body[12...])) == large)
        #expect(result.messageID & 3 == 1)

        let failure = try SessionHarness.open(harness.server.respond(
            to: 43, result: .failure(RPCError(code: 400, message: String(repeating: "X", count: 1_000))), now: SessionHarness.now))
        #expect(try MT.RpcError.deserialize(Array(failure.body[12...])).constructorName == "rpc_error")
    }

    @Test func pingDelayDisconnectUnknownMethodsAndForeignPackets() throws {
        var harness = SessionHarness()
        harness.salt = 0x5a17
        let (_, pingEvents) = harness.send(MT.functions.PingDelayDisconnect(pingId: 5, disconnectDelay: 75).serialized())
        #expect(pingEvents.contains { if case .disconnectAfter(75) = $0 { return true } else { return false } })

        let (unknownID, unknown) = harness.send([0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0])
        let reply = try #require(try SessionHarness.sent(unknown).last)
        #expect(Array(reply.body[4..<12]) == withUnsafeBytes(of: unknownID.littleEndian) { Array($0) })
        let error = RPCError(try MT.RpcError.deserialize(Array(reply.body[12...])).value)
        #expect(error.code == 400 && error.message == "INPUT_METHOD_INVALID_\(0xefbe_adde as UInt32)")

        var rng = SplitMix64(seed: 52)
        let foreign = EncryptedPacket.encrypt(DecryptedMessage(salt: 0, sessionID: 1, messageID: 4, seqno: 1, body: [0, 0, 0, 0]),
                                              authKey: try AuthKey(bytes: [UInt8](repeating: 9, count: 256)),
                                              direction: .clientToServer, using: &rng)
        let dropped = harness.server.receive(foreign, now: SessionHarness.now)
        guard case .dropped(.unknownAuthKey)? = dropped.first else { Issue.record("not dropped: \(dropped)"); return }
    }
}

extension MT.RpcError {
    var value: MT.RpcError.RpcError {
        switch self { case let .rpcError(value): return value }
    }
}

struct ServerSessionServiceTests {
    @Test func msgsStateReqAndDestroySessionAreAnswered() throws {
        var harness = SessionHarness()
        harness.salt = 0x5a17
        let (stateID, stateEvents) = harness.send(MT.MsgsStateReq.msgsStateReq(.init(msgIds: [1, 2, 3])).serialized())
        let infos = try SessionHarness.sent(stateEvents).compactMap { try? MT.MsgsStateInfo.deserialize($0.body) }
        guard case let .msgsStateInfo(info)? = infos.first else { Issue.record("no msgs_state_info"); return }
        #expect(info.reqMsgId == stateID && info.info.utf8.count == 3)

        let (_, destroyEvents) = harness.send(MT.functions.DestroySession(sessionId: 999).serialized())
        let reply = try #require(try SessionHarness.sent(destroyEvents).last)
        #expect(try MT.DestroySessionRes.deserialize(Array(reply.body[12...])) == .destroySessionNone(.init(sessionId: 999)))
    }

    @Test func clientResendsUnansweredCallsAfterAReconnect() throws {
        var client = ClientSession(authKey: SessionHarness.authKey, salt: 1, rng: SplitMix64(seed: 80))
        let first = client.call(API.functions.help.GetConfig().serialized(), now: SessionHarness.now)
        let second = client.call(API.functions.updates.GetState().serialized(), now: SessionHarness.now)
        #expect(client.pendingTokens == [first.token, second.token])
        let resent = client.resendPending(now: SessionHarness.now + 5)
        #expect(resent.count == 2)
        let bodies = try resent.map { try EncryptedPacket.decrypt($0, authKey: SessionHarness.authKey, direction: .clientToServer) }
        #expect(bodies.map(\.body) == [API.functions.help.GetConfig().serialized(), API.functions.updates.GetState().serialized()])
        #expect(bodies[0].messageID != (try EncryptedPacket.decrypt(first.packet, authKey: SessionHarness.authKey, direction: .clientToServer)).messageID)
        #expect(client.pendingTokens == [first.token, second.token])
    }
}
