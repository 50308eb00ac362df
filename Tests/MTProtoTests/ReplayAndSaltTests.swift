import Testing
import TL
@testable import MTProto

/// Salts change every hour (the exchange's own salt for the hour the key was made), the previous hour's is accepted for
/// half an hour; msg_ids are remembered per (key, session) across connections.
struct ReplayAndSaltTests {
    static let key = try! AuthKey(bytes: (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    static let created: Int32 = 1_700_000_000

    @Test func saltsRotateHourlyWithAHalfHourGrace() {
        var salts = ServerSalts(authKey: Self.key, base: 0x5a17, createdAt: Self.created)
        let now = Double(Self.created)
        #expect(salts.current(at: now) == 0x5a17)
        let hourStart = Double((Int64(Self.created) / ServerSalts.period + 1) * ServerSalts.period)
        let next = salts.current(at: hourStart)
        #expect(next != 0x5a17)
        let verdicts = [salts.accepts(0x5a17, at: hourStart + 1_799), salts.accepts(0x5a17, at: hourStart + 1_800),
                        salts.accepts(next, at: hourStart + 3_599), salts.accepts(next, at: hourStart + 3_600 + 1_800)]
        #expect(verdicts == [true, false, true, false])
        // Another process computes the same salts; another key does not.
        #expect(ServerSalts(authKey: Self.key, base: 0x5a17, createdAt: Self.created).salt(period: Int64(hourStart) / 3_600) == next)
        let other = ServerSalts(authKey: try! AuthKey(bytes: [UInt8](repeating: 1, count: 256)), base: 0x5a17, createdAt: Self.created)
        #expect(other.salt(period: Int64(hourStart) / 3_600) != next)
        // get_future_salts: each salt is the one current during its validity.
        let future = salts.future(count: 3, at: hourStart + 10)
        #expect(future.count == 3)
        for entry in future { #expect(salts.salt(period: Int64(entry.validSince) / 3_600) == entry.salt && entry.validUntil - entry.validSince == 3_600) }
    }

    @Test func aMessageIDIsRefusedOnEveryConnectionOfItsSession() {
        let windows = ReplayWindows()
        let now = 1_700_000_000.0
        let id = Int64(now) << 32
        #expect(windows.check(id, authKeyID: 16, sessionID: 5, now: now) == nil)
        #expect(windows.check(id, authKeyID: 16, sessionID: 5, now: now + 1) == .messageIDDuplicate)
        #expect(windows.check(id, authKeyID: 16, sessionID: 6, now: now + 1) == nil)   // another session
        #expect(windows.check(id, authKeyID: 32, sessionID: 5, now: now + 1) == nil)   // another key
        // A key keeps its most recent sessions; a window unused past msg_id's windows goes (swept when its shard is
        // next used: these keys share one).
        for session in 100..<Int64(100 + ReplayWindows.sessionsPerKey) { _ = windows.check(id + 4, authKeyID: 48, sessionID: session, now: now + 2) }
        #expect(windows.sessionCount <= 3 + ReplayWindows.sessionsPerKey)
        _ = windows.check((Int64(now) + 400) << 32, authKeyID: 144, sessionID: 1, now: now + 400)
        #expect(windows.sessionCount == 1)
    }

    /// A packet replayed into a second `ServerSession` (another connection) sharing the server's windows is refused.
    @Test func aReplayOnANewConnectionIsNotExecuted() {
        let windows = ReplayWindows()
        let now = Double(Self.created)
        var client = ClientSession(authKey: Self.key, salt: 0x5a17, rng: SystemRandomNumberGenerator())
        let call = client.call(API.functions.updates.GetState().serialized(), now: now).packet
        var first = ServerSession(authKey: Self.key, salt: 0x5a17, createdAt: Self.created, replayWindows: windows, rng: SystemRandomNumberGenerator())
        #expect(first.receive(call, now: now).contains { if case .invoke = $0 { true } else { false } })
        var second = ServerSession(authKey: Self.key, salt: 0x5a17, createdAt: Self.created, replayWindows: windows, rng: SystemRandomNumberGenerator())
        #expect(!second.receive(call, now: now + 5).contains { if case .invoke = $0 { true } else { false } })
        var unshared = ServerSession(authKey: Self.key, salt: 0x5a17, createdAt: Self.created, rng: SystemRandomNumberGenerator())
        #expect(unshared.receive(call, now: now + 5).contains { if case .invoke = $0 { true } else { false } })   // what was
    }

    /// Several processes, each with its own windows: a session's first packet on a connection waits for a claim, and
    /// a process that takes the session over refuses msg_ids from before its floor (−16), so a packet the first
    /// process executed is not executed again by the second; a new packet of the client is.
    @Test func aSessionTakenOverRefusesWhatCameBeforeItsFloor() throws {
        let now = Double(Self.created)
        var client = ClientSession(authKey: Self.key, salt: 0x5a17, rng: SystemRandomNumberGenerator())
        let call = client.call(API.functions.updates.GetState().serialized(), now: now).packet
        func invoked(_ actions: [ServerConnectionAction]) -> Bool { actions.contains { if case .invoke = $0 { true } else { false } } }
        func process(_ windows: ReplayWindows) -> ServerConnection<SystemRandomNumberGenerator> {
            ServerConnection(rsaKey: RSAPrivateKey(modulus: [1], publicExponent: [1], privateExponent: [1]), rng: SystemRandomNumberGenerator(),
                             replayWindows: windows, claimsSessions: true) { _ in StoredAuthKey(authKey: Self.key, salt: 0x5a17, createdAt: Self.created) }
        }
        var first = process(ReplayWindows())
        guard case let .claimSession(session)? = first.receive(call, now: now).first else { Issue.record("no claim asked"); return }
        first.sessionClaimed(session, floor: nil, now: now)
        #expect(invoked(first.receive(call, now: now)))

        var second = process(ReplayWindows())
        guard case .claimSession? = second.receive(call, now: now + 5).first else { Issue.record("no claim asked"); return }
        second.sessionClaimed(session, floor: (Int64(now) + 3) << 32, now: now + 5)
        #expect(!invoked(second.receive(call, now: now + 5)), "the replay was executed by the second process")
        let fresh = client.call(API.functions.updates.GetState().serialized(), now: now + 5).packet
        #expect(invoked(second.receive(fresh, now: now + 5)))
    }

    /// bad_msg_notification 19 (the server has seen the id: a resent or duplicated packet) does not fail the call: its
    /// answer comes with the first copy's (before, the client gave up calls the server had carried out).
    @Test func aDuplicateNoticeKeepsTheCallWaitingForItsAnswer() throws {
        let now = Double(Self.created)
        var client = ClientSession(authKey: Self.key, salt: 0x5a17, rng: SystemRandomNumberGenerator())
        let (token, packet) = client.call(API.functions.updates.GetState().serialized(), now: now)
        var server = ServerSession(authKey: Self.key, salt: 0x5a17, createdAt: Self.created, rng: SystemRandomNumberGenerator())
        let invoked = server.receive(packet, now: now).compactMap { event -> IncomingRPC? in
            if case let .invoke(rpc) = event { rpc } else { nil }
        }
        let rpc = try #require(invoked.first)
        let notice = MT.BadMsgNotification.badMsgNotification(.init(badMsgId: rpc.messageID, badMsgSeqno: 1, errorCode: 19))
        let heard = client.receive(server.seal(notice.serialized(), contentRelated: false, response: true, now: now), now: now)
        #expect(!heard.contains { if case .rejected = $0 { true } else { false } })
        #expect(client.pendingTokens == [token])
        let answer = server.respond(to: rpc.messageID, result: .failure(RPCError(code: 400, message: "X")), now: now)
        #expect(client.receive(answer, now: now).contains { if case .result(token, _) = $0 { true } else { false } })
    }
}
