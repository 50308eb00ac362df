import Foundation
import MTProto
import SyncServer
import SyncTesting
import Testing
import TL

/// Several `synccore server` processes on one PostgreSQL database, as one data center.
@Suite(.timeLimit(.minutes(10)), .enabled(if: TestPostgres.url != nil))
struct MultiProcessTests {
    static func start(_ database: String, data: String, _ extra: [String] = []) async throws -> ServerProcess {
        try await ServerProcess(executable: ServerProcess.executable(), arguments: [
            "--postgres", database, "--data", data, "--seed", "dev", "--login-code", "12345", "--log-level", "warning",
        ] + extra)
    }

    static func resolve(_ username: String, in client: TestClient) async throws -> API.InputPeer {
        guard case let .resolvedPeer(resolved) = try await client.call(API.functions.contacts.ResolveUsername(username: username)),
              case let .user(user)? = resolved.users.first, let accessHash = user.accessHash
        else { throw TestClientError.unexpected("cannot resolve \(username)") }
        return .inputPeerUser(.init(userId: user.id, accessHash: accessHash))
    }

    /// `count` messages ("prefix 1"…) with `inFlight` outstanding; returns the pts of each send's answer.
    static func sendAll(_ count: Int, prefix: String, to peer: API.InputPeer, from client: TestClient, inFlight: Int = 16)
        async throws -> [Int32] {
        try await withThrowingTaskGroup(of: Int32.self) { group in
            var started = 0
            var pts: [Int32] = []
            func start() {
                started += 1
                let text = "\(prefix) \(started)"
                group.addTask {
                    let result = try await client.call(API.functions.messages.SendMessage(peer: peer, message: text,
                                                                                          randomId: .random(in: 1...Int64.max)))
                    guard case let .updateShortSentMessage(sent) = result else { throw TestClientError.unexpected("\(result)") }
                    return sent.pts
                }
            }
            while started < min(inFlight, count) { start() }
            while let next = try await group.next() {
                pts.append(next)
                if started < count { start() }
            }
            return pts
        }
    }

    /// Alice on one process and Bob on the other send 10,000 messages each to each other at once: each receives
    /// every message of the other exactly once, pushed across processes, and each box's pts runs 1…20,000 without
    /// a hole or a repeat (the sends' answers and the pushes together). Bob's process runs on one event loop of its
    /// own (`--event-loops 1`), Alice's on the default.
    @Test func twoProcessesDeliverEveryMessageOnceWithoutPtsHoles() async throws {
        let database = try await TestPostgres.createDatabase()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-mp-\(UUID().uuidString)").path
        // Each process has a data directory of its own: the RSA key and the auth keys are in the database.
        let key = try TestServerKey.install(inDirectory: data + "/first")
        let first = try await Self.start(database, data: data + "/first")
        let second = try await Self.start(database, data: data + "/second", ["--event-loops", "1"])
        let alice = try await TestClient(port: first.port, publicKey: key)
        try await alice.login(phone: "+15550001")
        let bob = try await TestClient(port: second.port, publicKey: key)
        try await bob.login(phone: "+15550002")
        let aliceInbox = PushInbox(alice)
        let bobInbox = PushInbox(bob)
        let toBob = try await Self.resolve("bob", in: alice)
        let toAlice = try await Self.resolve("alice", in: bob)

        let perSide = 10_000
        async let aliceSent = Self.sendAll(perSide, prefix: "from alice", to: toBob, from: alice)
        async let bobSent = Self.sendAll(perSide, prefix: "from bob", to: toAlice, from: bob)
        let (alicePts, bobPts) = try await (aliceSent, bobSent)
        #expect(await aliceInbox.wait(for: perSide, seconds: 120))
        #expect(await bobInbox.wait(for: perSide, seconds: 120))
        try await Task.sleep(for: .milliseconds(300))   // anything pushed twice would arrive by now

        for (inbox, sent, sender) in [(aliceInbox, alicePts, "from bob"), (bobInbox, bobPts, "from alice")] {
            let received = inbox.messages
            #expect(received.count == perSide, "\(received.count) pushed")
            #expect(Set(received.map(\.text)) == Set((1...perSide).map { "\(sender) \($0)" }))
            #expect((received.map(\.pts) + sent).sorted() == Array(1...Int32(2 * perSide)))
            #expect(inbox.tooLongCount == 0)
        }
        for client in [alice, bob] {
            guard case let .state(state) = try await client.call(API.functions.updates.GetState()) else { Issue.record("state"); return }
            #expect(state.pts == Int32(2 * perSide))
        }
        await alice.close()
        await bob.close()
        #expect(await first.stop(), "a clean shutdown")
        #expect(await second.stop(), "a clean shutdown")
        await TestPostgres.dropDatabase(database)
        try? FileManager.default.removeItem(atPath: data)
    }
}
