import Foundation
import MTProto
import MTProtoNIO
import SyncServer
import SyncTesting
import Testing
import TL

/// `synccore server`'s PostgreSQL options, seen from outside: the pool's size in the cluster's connection list, and the
/// statement deadline as what a client gets when the database stops answering without closing its sockets (values out
/// of range: `ServerCommandTests`).
@Suite(.timeLimit(.minutes(3)), .enabled(if: TestPostgres.url != nil))
struct PostgresServerOptionsTests {
    @Test func aServerProcessKeepsItsPoolSizeAndFailsRequestsAtItsStatementDeadline() async throws {
        let database = try await TestPostgres.createDatabase()
        defer { Task { await TestPostgres.dropDatabase(database) } }
        var relayed = try #require(URLComponents(string: database))
        let relay = try await FaultyRelay.start(targetPort: try #require(relayed.port), seed: 3, rawBytes: true)
        relayed.port = relay.port
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-pgopts-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let key = try TestServerKey.install(inDirectory: data)
        let server = try await ServerProcess(executable: ServerProcess.executable(), arguments: [
            "--postgres", try #require(relayed.string), "--postgres-connections", "3", "--postgres-deadline", "2",
            "--data", data, "--seed", "dev", "--login-code", "12345", "--log-level", "critical",
        ])
        // The set-up's calls are read again after a 500: with a 2 s deadline, a login on a machine busy with the
        // rest of the suite can wait past it for a connection (CI saw it once), and what is tested comes after.
        let (alice, bob, _) = try await Self.retryingDeadline {
            try await PostgresFaultTests.aliceAndBob(alice: server.port, bob: server.port, key: key)
        }
        let bobPeer = try await Self.retryingDeadline { try await MultiProcessTests.resolve("bob", in: alice) }
        var failures = 0
        try await PostgresFaultTests.sendAcknowledged("before", to: bobPeer, from: alice, failures: &failures)
        // Forty differences at once, each a transaction of its own: the pool opens a connection for each that runs
        // beside others, three at most (with the default, up to sixteen). Beside them: the listening connection, the
        // group commit's and the cross-process reads'.
        // On a loaded machine some may wait for a connection past the 2 s deadline and fail with a 500: that is the
        // deadline at work, and what is counted here is the pool.
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    do {
                        _ = try await alice.call(API.functions.updates.GetDifference(pts: 0, date: 0, qts: 0))
                        return true
                    } catch let MTProtoClientError.rpc(rpc) where rpc.code == 500 {
                        return false
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered > 0)
        let connections = try await TestPostgres.connectionCount(to: database)
        #expect(connections <= 6, "\(connections) connections")

        // Every byte to and from PostgreSQL is dropped: the send fails after about the 2 s deadline, not 30 s.
        relay.setFaults(FaultRates(drop: 1))
        let clock = ContinuousClock(), cut = clock.now
        do {
            _ = try await alice.call(API.functions.messages.SendMessage(peer: bobPeer, message: "cut off", randomId: 7))
            Issue.record("a send was acknowledged while the database was unreachable")
        } catch let error as MTProtoClientError {
            guard case let .rpc(rpc) = error else { throw error }
            #expect(rpc.code == 500, "\(rpc)")
        }
        let waited = clock.now - cut
        #expect(waited >= .seconds(1.5) && waited < .seconds(10), "failed after \(waited)")

        relay.setFaults(.none)
        try await PostgresFaultTests.sendAcknowledged("after", to: bobPeer, from: alice, seconds: 30, failures: &failures)
        await alice.close()
        await bob.close()
        #expect(await server.stop())
        await relay.stop()
    }

    /// `body`, again after each 500 for up to 30 s.
    static func retryingDeadline<Value>(_ body: () async throws -> Value) async throws -> Value {
        try await retrying(for: 30, when: { if case let MTProtoClientError.rpc(rpc) = $0 { rpc.code == 500 } else { false } }, body)
    }
}
