import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MTProto
import NIOPosix
import SyncServer
import SyncTesting
import Synchronization
import Testing
import TL

/// Faults of a PostgreSQL-backed data center, on a cluster of the test's own (it is restarted, which the shared test
/// cluster's other users must not see): PostgreSQL restarted while a client sends, and a server process killed.
@Suite(.timeLimit(.minutes(5)), .enabled(if: TestPostgres.url != nil))
struct PostgresFaultTests {
    /// `Scripts/postgres.sh` of this checkout.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/postgres.sh").path

    /// Runs `Scripts/postgres.sh command directory`; returns the cluster's URL. Its output is not piped: the
    /// server it starts would inherit the pipe and hold it open.
    static func cluster(_ command: String, _ directory: String, _ extra: [String] = []) async throws -> String {
        let exit = try await ChildProcess.runDiscardingOutput("/bin/bash", [script, command, directory] + extra)
        guard exit.isClean else { throw TestClientError.unexpected("postgres.sh \(command) failed: \(exit)") }
        let port = try String(contentsOfFile: directory + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return "postgres://synccore@127.0.0.1:\(port)/postgres"
    }

    /// Alice (+15550001) and Bob (+15550002) of `--seed dev`, logged in to the servers on those ports, whose RSA key
    /// is `key` (`TestServerKey`).
    static func aliceAndBob(alice: Int, bob: Int, key: RSAPublicKey) async throws -> (alice: TestClient, bob: TestClient, key: RSAPublicKey) {
        let aliceClient = try await TestClient(port: alice, publicKey: key)
        try await aliceClient.login(phone: "+15550001")
        let bobClient = try await TestClient(port: bob, publicKey: key)
        try await bobClient.login(phone: "+15550002")
        return (aliceClient, bobClient, key)
    }

    /// Sends until the server acknowledges, retrying the same random_id after any failure (a 500 while the
    /// database is away, a lost connection), as clients do; gives up after `seconds`.
    @discardableResult
    static func sendAcknowledged(_ text: String, to peer: API.InputPeer, from client: TestClient, seconds: Double = 60,
                                 failures: inout Int) async throws -> Int32 {
        let randomID = Int64.random(in: 1...Int64.max)
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            do {
                let answer = try await client.call(API.functions.messages.SendMessage(peer: peer, message: text, randomId: randomID))
                guard case let .updateShortSentMessage(sent) = answer else { throw TestClientError.unexpected("\(answer)") }
                return sent.pts
            } catch {
                failures += 1
                guard ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// A port of 127.0.0.1 free a moment ago.
    static func freePort() throws -> Int {
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).wait()
        defer { try? channel.close().wait() }
        return try #require(channel.localAddress?.port)
    }

    @Test func aRestartedDatabaseLosesNothingAcknowledgedAndAKilledProcessIsReplacedByAnother() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-pgfault-\(UUID().uuidString)").path
        let clusterURL = try await Self.cluster("start", root + "/cluster")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let database = try await TestPostgres.createDatabase(in: clusterURL)
        // At `error`, a process logs each read of the logs that failed: what a failure below reports.
        let arguments = ["--postgres", database, "--data", root + "/data", "--seed", "dev", "--login-code", "12345", "--log-level", "error"]
        let serverKey = try TestServerKey.install(inDirectory: root + "/data")
        let metricsPort = try Self.freePort()
        let first = try await ServerProcess(executable: ServerProcess.executable(), arguments: arguments + ["--metrics-port", "\(metricsPort)"])
        let second = try await ServerProcess(executable: ServerProcess.executable(), arguments: arguments)
        let (alice, bob, key) = try await Self.aliceAndBob(alice: first.port, bob: second.port, key: serverKey)
        let bobInbox = PushInbox(bob)
        let toBob = try await MultiProcessTests.resolve("bob", in: alice)
        let toAlice = try await MultiProcessTests.resolve("alice", in: bob)

        // PostgreSQL restarts while Alice sends; every acknowledged message stays, and Bob's process, whose
        // listening connection was cut, pushes what it missed from the log once it is back.
        let restarted = RestartFlag()
        let restart = Task {
            try await Task.sleep(for: .milliseconds(300))
            _ = try await Self.cluster("restart", root + "/cluster", ["1"])   // down for a second
            restarted.done.withLock { $0 = true }
        }
        var alicePts: [Int32] = []
        var failures = 0
        var afterRestart = 0
        while afterRestart < 20 {
            if restarted.done.withLock({ $0 }) { afterRestart += 1 }
            alicePts.append(try await Self.sendAcknowledged("m\(alicePts.count + 1)", to: toBob, from: alice, failures: &failures))
        }
        try await restart.value
        let total = alicePts.count
        #expect(failures > 0, "no send met the restart")
        #expect(alicePts == Array(1...Int32(total)))
        let allArrived = await bobInbox.wait(for: total, seconds: 30)
        #expect(allArrived, "Bob's process logged:\n\(second.output.suffix(20_000))")
        try await Task.sleep(for: .milliseconds(300))
        #expect(bobInbox.messages.map(\.text).sorted() == (1...total).map { "m\($0)" }.sorted())
        #expect(bobInbox.messages.map(\.pts).sorted() == Array(1...Int32(total)))
        // The first process served only Alice's sends: each committed one assigned a pts in her box and in Bob's.
        // Sends that failed in the restart (their writes rolled back or never ran) are not counted.
        let (body, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(metricsPort)/metrics")))
        let assigned = String(decoding: body, as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix(#"synccore_pts_assigned_total{box="user"}"#) }?.split(separator: " ").last.flatMap { Int($0) }
        #expect(assigned == 2 * total, "pts assigned \(assigned ?? -1) for \(total) committed sends and \(failures) failed attempts")

        // The first process dies with SIGKILL; Bob writes meanwhile; Alice reconnects to the other process of the DC
        // with her key and catches up by difference.
        await first.kill()
        for index in 1...5 { try await Self.sendAcknowledged("while away \(index)", to: toAlice, from: bob, failures: &failures) }
        let aliceAgain = try await TestClient(port: second.port, publicKey: key, existingKey: alice.connection.key)
        guard case let .difference(missed) = try await aliceAgain.call(API.functions.updates.GetDifference(pts: Int32(total), date: 0, qts: 0))
        else { Issue.record("no difference"); return }
        let texts = missed.newMessages.compactMap { message -> String? in if case let .message(value) = message { value.message } else { nil } }
        #expect(texts == (1...5).map { "while away \($0)" })
        try await Self.sendAcknowledged("back", to: toBob, from: aliceAgain, failures: &failures)
        #expect(await bobInbox.wait(for: total + 1, seconds: 30))

        await alice.close()
        await aliceAgain.close()
        await bob.close()
        #expect(await second.stop(), "a clean shutdown")
        _ = try await Self.cluster("stop", root + "/cluster")
    }
}

private final class RestartFlag: Sendable {
    let done = Mutex(false)
}
