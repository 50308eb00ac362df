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
        let directory = ServerKeyFilesTests.temporaryDirectory()
        let server = try await SyncServer.start(
            SyncServerConfiguration(port: 0, dataDirectory: directory, loginCode: "12345", seedDevAccounts: true, metricsPort: 0),
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
        let (_, missing) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/other")!)
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        await alice.close()
        try await server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
