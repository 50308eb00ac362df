import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// `--metrics-port` serves the Prometheus text format with the server's counters.
@Suite(.timeLimit(.minutes(1)))
struct MetricsTests {
    @Test func metricsEndpointCountsRPCsSessionsAndPts() async throws {
        let directory = ServerKeysTests.temporaryDirectory()
        let server = try await SyncServer.start(
            SyncServerConfiguration(port: 0, dataDirectory: directory, loginCode: "12345", seedDevAccounts: true, metricsPort: 0,
                                    initialRSAKey: TestServerKey.key),
            logger: Logger(label: "test"))
        let alice = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        try await alice.login(phone: alicePhone)
        _ = try await send("counted", to: .inputPeerSelf(.init()), from: alice)
        _ = try await alice.call(API.functions.updates.GetDifference(pts: 0, date: 0, qts: 0))
        let port = try #require(server.metricsPort)
        let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#"synccore_rpcs_total{method="messages.sendMessage",outcome="ok"}"#), "\(text)")
        #expect(text.contains("synccore_sessions"))
        #expect(text.contains(#"synccore_pts_assigned_total{box="user"}"#))
        #expect(text.contains(#"synccore_differences_total{kind="updates.difference"}"#))
        #expect(text.contains("synccore_storage_write_seconds_bucket{"), "the write latency histogram")
        let lines = text.split(separator: "\n")
        for (index, line) in lines.enumerated() where line.hasPrefix("# TYPE ") {
            let name = line.dropFirst("# TYPE ".count).prefix { $0 != " " }
            #expect(index > 0 && lines[index - 1].hasPrefix("# HELP \(name) "), "a HELP line for \(name)")
        }
        let (_, missing) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/other")!)
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        await alice.close()
        try await server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// pts count for the metric only in the write that committed them: a body run again (a lost race) counts once,
    /// and nothing outside a counted write.
    @Test func ptsCountOnceForTheBodyThatCommitted() {
        WriteTally.assigned(5, channel: false)   // outside any write: nowhere to count, no trap
        let tally = WriteTally()
        for _ in 0..<2 {
            tally.counting {
                WriteTally.assigned(2, channel: false)
                WriteTally.assigned(1, channel: true)
            }
        }
        #expect(tally.user == 2 && tally.channel == 1)
        let other = WriteTally()
        other.counting { WriteTally.assigned(7, channel: false) }
        #expect(other.user == 7 && tally.user == 2, "each write its own")
    }
}

/// The PostgreSQL backend's gauges, read at the scrape: the pool and the commit feed's listener.
@Suite(.timeLimit(.minutes(2)), .enabled(if: TestPostgres.url != nil))
struct PostgresMetricsTests {
    @Test func postgresGaugesAreServed() async throws {
        let harness = try await ServerHarness(backend: .postgres, metricsPort: 0)
        let alice = try await harness.loggedIn(alicePhone)
        _ = try await send("counted", to: .inputPeerSelf(.init()), from: alice)
        // The listener connects beside the start: read its gauge from the storage until it is up (no HTTP in a loop).
        let deadline = ContinuousClock.now + .seconds(30)
        while harness.server.context.storage.gauges.contains(StorageGauge(name: "synccore_postgres_listener_connected", value: 0)),
              ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let port = try #require(harness.server.metricsPort)
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("synccore_postgres_listener_connected 1"), "\(text)")
        for name in ["synccore_postgres_connections_in_use", "synccore_postgres_connections_idle", "synccore_postgres_waiting"] {
            #expect(text.contains("# HELP \(name) ") && text.contains("\n\(name) "), "\(name)")
        }
        await alice.close()
        try await harness.stop()
    }
}
