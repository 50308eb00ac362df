import Foundation
import MTProto
import NIOCore
import NIOPosix
import SyncServer
import SyncTesting
import Testing
import TL

/// `synccore server` started under the common soft limit of 1,024 descriptors: it raises the limit to the hard one,
/// so 2,000 sockets that connect and never send a byte do not lock out a client that logs in meanwhile (before, every
/// descriptor was taken and logins failed for as long as the sockets were held).
@Suite(.timeLimit(.minutes(3)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
struct DescriptorLimitTests {
    @Test func aServerStartedUnderTheCommonSoftLimitServesALoginPast2000IdleSockets() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-fd-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try await ServerProcess(executable: ServerProcess.executable(),
                                             arguments: ["--data", data, "--seed", "dev", "--login-code", "12345", "--log-level", "warning"],
                                             launcher: ["/usr/bin/prlimit", "--nofile=1024:"], timeout: 90)
        let limits = (try? String(contentsOfFile: "/proc/\(server.processIdentifier)/limits", encoding: .utf8)) ?? ""
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?.split(separator: " ").compactMap { Int($0) } ?? []
        #expect(openFiles.count == 2 && openFiles[0] == openFiles[1] && openFiles[0] > 1_024, "the server's limits: \(openFiles)")

        // From four other loopback addresses (500 each: under the per-address cap of 1,000), as strangers elsewhere.
        let connecting = try (0..<2_000).map { index in
            ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(to: try SocketAddress(ipAddress: "127.0.0.\(2 + index % 4)", port: 0))
                .connect(host: "127.0.0.1", port: server.port)
        }
        var idle: [any Channel] = []
        for connection in connecting { idle.append(try await connection.get()) }
        // The server holds them: more descriptors open than the soft limit it was started with.
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.processIdentifier)/fd").count) ?? 0
        #expect(descriptors > 1_024, "\(descriptors) descriptors open in the server")
        let key = try #require(try ServerKeys.rsaKey(dataDirectory: data)).publicKey
        let alice = try await TestClient(port: server.port, publicKey: key)
        try await alice.login(phone: "+15550001")
        guard case .state = try await alice.call(API.functions.updates.GetState()) else { Issue.record("no state"); return }
        #expect(idle.filter(\.isActive).count > 1_024, "the idle sockets are still held (the login did not wait for them to time out)")
        await alice.close()
        for channel in idle { try? await channel.close() }
        #expect(await server.stop())
    }
}
