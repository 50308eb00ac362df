import Foundation
@testable import SyncCLI
import SyncHarness
import SyncTesting
import Testing
import TL

/// `synccore server`'s options: values out of range are refused before anything starts, naming the option.
@Suite(.timeLimit(.minutes(2)))
struct ServerCommandTests {
    @Test(arguments: [
        (["--event-loops", "0"], "--event-loops must be 1…256"),
        (["--event-loops", "100000"], "--event-loops must be 1…256"),
        (["--dcs", "9"], "--dcs must be 1…5"),
        (["--send-rate=-1"], "--send-rate must not be negative"),
        (["--postgres", "postgres://sync@127.0.0.1:1/chat?sslcert=client.pem"], "sslcert and sslkey go together"),
        (["--postgres", "postgres://sync@127.0.0.1:1/chat?sslcrl=crl.pem"], "unsupported URL parameter sslcrl"),
        (["--postgres", "postgres://sync@127.0.0.1:1/chat?sslpassword=hush-7"], "chat?sslpassword=***: sslpassword is the passphrase of sslkey"),
        (["--postgres-connections", "0"], "--postgres-connections must be 1…1000"),
        (["--postgres-deadline", "0"], "--postgres-deadline must be 0.1…86400 seconds"),
        (["--postgres-wait=-1"], "--postgres-wait must be 0…86400 seconds"),
        (["--advertise", "lb.example:0"], "--advertise must be HOST or HOST:PORT"),
        (["--advertise", "lb.example:443:1"], "--advertise must be HOST or HOST:PORT"),
        (["--advertise", "[::1"], "--advertise must be HOST or HOST:PORT"),
        (["--max-file-size", "3G"], "--max-file-size must be 1K…2000M"),
        (["--max-file-size", "100"], "--max-file-size must be 1K…2000M"),
        (["--max-file-size", "12T"], "--max-file-size must be 1K…2000M"),
        (["--user-quota=-5"], "--user-quota must be a size"),
        (["--user-quota", "99999999999G"], "--user-quota must be a size"),
    ])
    func outOfRangeOptionsAreRefused(arguments: [String], says: String) async throws {
        let result = try await ClientCommandTests.run(["server", "--port", "0", "--data", "/nonexistent/synccore"] + arguments)
        #expect(result.status != 0 && result.stderr.contains(says), "\(arguments): \(result.stderr)")
    }

    @Test func sizesTakeBinaryUnits() {
        #expect(ServerCommand.byteCount("1048576") == 1 << 20)
        #expect(ServerCommand.byteCount("512K") == 512 << 10)
        #expect(ServerCommand.byteCount("2000m") == 2_000 << 20)
        #expect(ServerCommand.byteCount("20GiB") == 20 << 30)
        #expect(ServerCommand.byteCount("1.5G") == nil)
        #expect(ServerCommand.byteCount("G") == nil)
    }

    /// `--max-file-size` and `--user-quota` reach the upload rules of a server process.
    @Test func theLargestFileAndTheQuotaApply() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-sizes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let key = try TestServerKey.install(inDirectory: data)
        let server = try await ServerProcess(executable: ServerProcess.executable(), arguments: [
            "--data", data, "--seed", "dev", "--login-code", "12345", "--log-level", "error",
            "--max-file-size", "1M", "--user-quota", "1M",
        ])
        let alice = try await TestClient(port: server.port, publicKey: key)
        _ = try await alice.login(phone: "15550001")
        let half = Data(repeating: 7, count: 512 * 1024)
        let refusal = { (call: API.functions.upload.SaveBigFilePart) async -> String? in await alice.refusal(call) }
        #expect(await refusal(.init(fileId: 1, filePart: 0, fileTotalParts: 3, bytes: half)) == "FILE_PARTS_INVALID",
                "three parts of 512 KiB announce more than 1 MiB")
        #expect(await refusal(.init(fileId: 1, filePart: 0, fileTotalParts: 2, bytes: half)) == nil)
        #expect(await refusal(.init(fileId: 1, filePart: 1, fileTotalParts: 2, bytes: half)) == nil)
        #expect(await refusal(.init(fileId: 2, filePart: 0, fileTotalParts: 2, bytes: Data(half.prefix(1024)))) == "UPLOAD_QUOTA_EXCEEDED",
                "1 MiB in progress fills the quota")
        await alice.close()
        #expect(await server.stop())
    }
}
