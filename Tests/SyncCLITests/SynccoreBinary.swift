import Foundation
import SyncHarness
import Testing

/// The `synccore` executable built beside the tests, run as users run it (through `ChildProcess`, never Foundation's
/// `Process`: see there why).
enum SynccoreBinary {
    static var path: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("synccore").path
    }

    static func run(_ arguments: [String], input: Data? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try #require(FileManager.default.isExecutableFile(atPath: path), "build the synccore executable first")
        let result = try await ChildProcess.run(path, arguments, input: input.map { [UInt8]($0) } ?? [])
        let status: Int32 = switch result.exit {
        case let .exited(status): status
        case let .signaled(signal): 128 + signal
        }
        return (status, result.stdout, result.stderr)
    }

    /// A long-running command (`watch`) whose standard output is read as it goes.
    static func start(_ arguments: [String]) async throws -> ChildProcess {
        try await ChildProcess.start(path, arguments)
    }
}
