import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOPosix
import SyncServer
import SyncHarness
import TL

/// `synccore bench login`: a first login through the client's `ConnectionManager` against an in-process two-DC
/// `synccore server`, for a user whose home DC is the one not contacted first (Alice, home DC 1; the client starts on
/// DC 2 and follows `PHONE_MIGRATE_1`). Telegram-iOS opens 20 TCP connections and makes 8 HTTPS requests for this
/// (issue #6's count); the target is at most 2 and none.
struct LoginBenchmark {
    static let phone = "+15550001"

    func run() async throws -> [BenchFigure] {
        let directory = try ServerBenchmark.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "bench.login")
        logger.logLevel = .error
        let server = try await SyncServer.start(
            SyncServerConfiguration(port: 0, dc: 1, dataDirectory: directory, loginCode: "12345", seedDevAccounts: true, dcCount: 2),
            logger: logger)
        do {
            let figures = try await measure(server)
            try await server.stop()
            return figures
        } catch {
            try? await server.stop()
            throw error
        }
    }

    private func measure(_ server: SyncServer) async throws -> [BenchFigure] {
        let manager = ConnectionManager(state: NetworkState(directory: .loopback(server.ports)), initialDC: 2,
                                        publicKeys: [server.keys.rsaKey.publicKey], group: MultiThreadedEventLoopGroup.singleton)
        let started = ContinuousClock.now
        await manager.beginPhase("login")
        try await manager.logIn(phone: Self.phone)
        let elapsed = (ContinuousClock.now - started).seconds
        let accounting = await manager.accountingByPhase["login"] ?? NetworkAccounting()
        let master = await manager.masterDC
        await manager.close()
        guard master == 1 else { throw BenchError.mismatch("the login ended on DC \(master), not the home DC 1") }
        return [
            BenchFigure(bench: "net.login_tcp", value: Double(accounting.tcpConnections), unit: "connections", target: 2,
                        higherIsBetter: false, note: "first login, home DC 1, started on DC 2 (PHONE_MIGRATE_1 followed)"),
            BenchFigure(bench: "net.login_http", value: Double(accounting.httpRequests), unit: "requests", target: 0,
                        higherIsBetter: false, note: "no HTTP discovery needed when the seed addresses answer"),
            BenchFigure(bench: "net.login_ms", value: elapsed * 1000, unit: "ms", higherIsBetter: false,
                        note: "two key exchanges (one per DC), sendCode twice, signIn; loopback"),
        ]
    }
}
