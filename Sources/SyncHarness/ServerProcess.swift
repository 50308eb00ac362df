import Foundation

public enum ServerProcessError: Error, CustomStringConvertible {
    case exited(ChildExit, output: String)
    case noAddress(output: String)

    public var description: String {
        switch self {
        case let .exited(exit, output): "the server process \(exit) before listening: \(output)"
        case let .noAddress(output): "the server process printed no address within the time allowed: \(output)"
        }
    }
}

/// A `synccore server` in a process of its own (the multi-process tests and benchmarks): started with the given
/// arguments plus `--port 0`, ready once it printed the port it listens on; stopped with SIGTERM or killed with
/// SIGKILL, and killed when let go of while still running.
public final class ServerProcess: Sendable {
    public let port: Int
    private let child: ChildProcess

    public var processIdentifier: Int32 { child.processIdentifier }

    /// Everything the process printed so far (its log, at the level its arguments asked for).
    public var output: String { child.output }

    /// `executable` is the `synccore` binary; `arguments` follow `server`. What it prints on either stream is read
    /// (never the caller's own standard error: a test run's is a pipe its runner reads to the end, and a server
    /// process left running by a crashed test would hold it open, so the run would never end).
    /// `launcher`: a command that runs the server (`prlimit --nofile=…`), the server's own command line following it.
    public init(executable: URL, arguments: [String], launcher: [String] = [], timeout: Double = 60) async throws {
        let command = launcher + [executable.path, "server", "--port", "0"] + arguments
        child = try await ChildProcess.start(command[0], Array(command.dropFirst()), mergingErrors: true)
        // "synccore server: dc 2 listening on 127.0.0.1:PORT"
        let port = await child.waitForOutput(timeout: .seconds(timeout)) { text in
            text.split(separator: "\n").first(where: { $0.contains(" listening on ") })
                .flatMap { $0.split(separator: ":").last.flatMap { Int($0) } }
        }
        guard let port else {
            let ended = child.hasEnded
            if !ended { child.send(SIGKILL) }
            let exit = await child.exit()
            throw ended ? ServerProcessError.exited(exit, output: child.output) : ServerProcessError.noAddress(output: child.output)
        }
        self.port = port
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
        child.send(SIGTERM)
        return await child.exit().isClean
    }

    /// SIGKILL: no shutdown at all, as a crash or an OOM kill.
    public func kill() async {
        child.send(SIGKILL)
        _ = await child.exit()
    }
}
