import Foundation
import MTProto
import SyncServer
import SyncHarness
import TL

extension ServerBenchmark {
    /// Starts `synccore server` as a child process, logs one client in, then opens `sessions` more connections with
    /// the same auth key, each making one call (so each is an attached, online session), and reads the child's
    /// VmRSS before and after. Returns KiB per session.
    func sessionMemory() async throws -> Double {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.createUsers(in: try SQLiteServerStorage(path: directory + "/server.sqlite"), count: 1)
        // The RSA key is made here, so the client knows it; the server process imports it at start.
        let rsaKey = try RSAPrivateKey.generate(bits: 2048)
        try ServerKeys.install(rsaKey, inDirectory: directory)
        let key = rsaKey.publicKey
        // Every session comes from this machine's one address: the per-address cap is raised past them.
        let server = try await ServerProcess(executable: ServerProcess.executable(), arguments: [
            "--data", directory, "--login-code", "12345", "--log-level", "error",
            "--max-connections", "\(2 * sessions)", "--max-connections-per-address", "\(2 * sessions)"])
        let port = server.port

        let first = try await TestClient(port: port, publicKey: key)
        try await first.login(phone: "19990001")
        _ = try await first.call(API.functions.updates.GetState())
        try await Task.sleep(for: .milliseconds(500))
        let before = try Self.residentKiB(of: server.processIdentifier)
        var clients: [TestClient] = []
        clients.reserveCapacity(sessions)
        let batch = 100
        while clients.count < sessions {
            let count = min(batch, sessions - clients.count)
            clients += try await withThrowingTaskGroup(of: TestClient.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        let client = try await TestClient(port: port, publicKey: key, existingKey: first.connection.key)
                        _ = try await client.connection.call(API.functions.updates.GetState())
                        return client
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await Task.sleep(for: .seconds(1))
        let after = try Self.residentKiB(of: server.processIdentifier)
        for client in clients { await client.close() }
        await first.close()
        await server.stop()
        return Double(after - before) / Double(sessions)
    }

    /// VmRSS of a process in KiB (Linux /proc).
    static func residentKiB(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let value = Int(line.split(separator: " ").dropFirst().first ?? "") else { throw BenchError.mismatch("no VmRSS") }
        return value
    }
}
