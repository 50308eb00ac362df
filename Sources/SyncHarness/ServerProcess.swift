import Foundation

public enum ServerProcessError: Error, CustomStringConvertible {
    case exited(status: Int32, output: String)
    case noAddress(output: String)

    public var description: String {
        switch self {
        case let .exited(status, output): "the server process exited with status \(status) before listening: \(output)"
        case let .noAddress(output): "the server process printed no address within the time allowed: \(output)"
        }
    }
}

/// A `synccore server` in a process of its own (the multi-process tests and benchmarks): started with the given
/// arguments plus `--port 0`, ready once it printed the port it listens on; stopped with SIGTERM or killed with
/// SIGKILL.
public final class ServerProcess: @unchecked Sendable {
    public let port: Int
    private let process: Process
    private let output: Pipe

    /// `executable` is the `synccore` binary; `arguments` follow `server`.
    public init(executable: URL, arguments: [String], timeout: Double = 60) async throws {
        process = Process()
        process.executableURL = executable
        process.arguments = ["server", "--port", "0"] + arguments
        output = Pipe()
        process.standardOutput = output
        // Not the caller's standard error: a test run's is a pipe its runner reads to the end, and a server process
        // left running by a crashed test would hold it open, so the run would never end.
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
        let process = self.process
        port = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var text = ""
                let deadline = Date().addingTimeInterval(timeout)
                while Date() < deadline {
                    let chunk = reader.availableData
                    if chunk.isEmpty {
                        if !process.isRunning {
                            process.waitUntilExit()
                            return continuation.resume(throwing: ServerProcessError.exited(status: process.terminationStatus, output: text))
                        }
                        continue
                    }
                    text += String(decoding: chunk, as: UTF8.self)
                    // "synccore server: dc 2 listening on 127.0.0.1:PORT"
                    if let line = text.split(separator: "\n").first(where: { $0.contains(" listening on ") }),
                       let port = line.split(separator: ":").last.flatMap({ Int($0) }) {
                        return continuation.resume(returning: port)
                    }
                }
                process.terminate()
                continuation.resume(throwing: ServerProcessError.noAddress(output: text))
            }
        }
        // Keep draining what the server prints so it never blocks on a full pipe.
        DispatchQueue.global().async { while !reader.availableData.isEmpty {} }
    }

    /// A process still running when its owner lets go of it (a test that threw before `stop()`) is killed.
    deinit {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// The `synccore` executable beside the running test bundle or command.
    public static func executable() -> URL {
        let here = URL(fileURLWithPath: CommandLine.arguments[0])
        if here.lastPathComponent == "synccore" { return here }
        return here.deletingLastPathComponent().appendingPathComponent("synccore")
    }

    /// SIGTERM (a clean stop) and waits for the exit; true when the process shut down cleanly (status 0, not
    /// killed by a signal: a crash on the way out, an assertion of a debug build, shows as false).
    @discardableResult
    public func stop() async -> Bool {
        if process.isRunning {
            process.terminate()
            await waitForExit()
        }
        return process.terminationReason == .exit && process.terminationStatus == 0
    }

    /// SIGKILL: no shutdown at all, as a crash or an OOM kill.
    public func kill() async {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        await waitForExit()
    }

    private func waitForExit() async {
        let process = self.process
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
    }
}
