import Foundation
import Subprocess
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// How a child process ended.
public enum ChildExit: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// Status 0 and not killed by a signal (a crash on the way out, an assertion of a debug build, shows as false).
    public var isClean: Bool { self == .exited(0) }

    public var description: String {
        switch self {
        case let .exited(status): "exited with status \(status)"
        case let .signaled(signal): "killed by signal \(signal)"
        }
    }

    public init(_ status: TerminationStatus) {
        switch status {
        case let .exited(code): self = .exited(code)
        case let .signaled(signal): self = .signaled(signal)
        }
    }
}

/// A program started from this process, through swift-subprocess rather than Foundation's `Process`: on Linux,
/// `Process.run()` lists `/proc/self/fd` with a dirent copy that can read past glibc's buffer, and a test process
/// with a thousand sockets open crashed there (swift-corelibs-foundation#5472); swift-subprocess walks the
/// descriptors with `getdents64` in C and closes them in the child. A child's standard input is empty and its standard
/// error goes nowhere, or into its standard output (`mergingErrors`): never this process's own, which a test runner
/// reads to the end (a child outliving a crashed test would hold it open forever).
public final class ChildProcess: Sendable {
    /// `run`'s cap on what a one-shot child prints (each stream): a runaway child is an error, not all of memory.
    public static let outputLimit = 64 << 20

    private let printed: PrintedOutput
    private let signals: AsyncStream<Int32>.Continuation
    private let outcome: Task<ChildExit, Never>

    /// The child's process id (for logs; signals go through `send`, which never reaches a recycled id).
    public let processIdentifier: Int32

    /// Starts `executable` and reads what it prints as it goes (`output`, `waitForOutput`).
    public static func start(_ executable: String, _ arguments: [String], mergingErrors: Bool = false) async throws -> ChildProcess {
        let (signals, signalsIn) = AsyncStream.makeStream(of: Int32.self)
        let printed = PrintedOutput()
        let started = StartSignal()
        let configuration = Configuration(executable: .path(FilePath(executable)), arguments: Arguments(arguments))
        let outcome = Task<ChildExit, Never> {
            defer { printed.end() }
            do {
                let status = mergingErrors
                    ? try await Subprocess.run(configuration, input: .none, output: .sequence, error: .combinedWithOutput) {
                        await follow($0, printed: printed, signals: signals, started: started)
                    }.terminationStatus
                    : try await Subprocess.run(configuration, input: .none, output: .sequence, error: .discarded) {
                        await follow($0, printed: printed, signals: signals, started: started)
                    }.terminationStatus
                return ChildExit(status)
            } catch {
                started.resume(with: .failure(error))
                return .exited(127)
            }
        }
        let pid = try await started.value
        return ChildProcess(printed: printed, signals: signalsIn, outcome: outcome, processIdentifier: pid)
    }

    /// While the child runs: its pid to `start`, what it prints into `printed`, the signals asked for to it.
    private static func follow<E: OutputProtocol>(
        _ execution: Execution<NoInput, SequenceOutput, E>, printed: PrintedOutput, signals: AsyncStream<Int32>, started: StartSignal
    ) async {
        started.resume(with: .success(execution.processIdentifier.value))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await signal in signals { try? execution.send(signal: Signal(rawValue: signal)) }
            }
            do {
                for try await buffer in execution.standardOutput {
                    buffer.withUnsafeBytes { printed.append($0) }
                }
            } catch {}
            group.cancelAll()
        }
    }

    private init(printed: PrintedOutput, signals: AsyncStream<Int32>.Continuation, outcome: Task<ChildExit, Never>, processIdentifier: Int32) {
        self.printed = printed
        self.signals = signals
        self.outcome = outcome
        self.processIdentifier = processIdentifier
    }

    /// A child still running when its owner lets go of it (a test that threw before stopping it) is killed.
    deinit { outcome.cancel() }

    /// Everything the child printed so far.
    public var output: String { printed.text }

    /// Sends `signal` (SIGTERM, SIGKILL, …); nothing once the child has ended.
    public func send(_ signal: Int32) { signals.yield(signal) }

    /// True once the child ended (and was waited for).
    public var hasEnded: Bool { printed.isEnded }

    /// Waits until the child ended; all it printed is then in `output`.
    public func exit() async -> ChildExit { await outcome.value }

    /// Waits until `match` finds something in what the child printed; nil when the child ended first or `timeout`
    /// passed.
    public func waitForOutput<T>(timeout: Duration, _ match: (String) -> T?) async -> T? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let ended = printed.isEnded
            if let found = match(output) { return found }
            if ended { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Runs `executable` to its end with `input` on its standard input; what it printed on each stream, each up to
    /// `outputLimit` bytes.
    public static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) async throws
        -> (exit: ChildExit, stdout: String, stderr: String) {
        let result = try await Subprocess.run(
            .path(FilePath(executable)), arguments: Arguments(arguments), input: .array(input),
            output: .string(limit: outputLimit), error: .string(limit: outputLimit))
        return (ChildExit(result.terminationStatus), result.standardOutput, result.standardError)
    }
}

/// What a running child printed, and whether its output ended.
private final class PrintedOutput: Sendable {
    private let state = Mutex<(bytes: [UInt8], ended: Bool)>(([], false))

    func append(_ bytes: UnsafeRawBufferPointer) { state.withLock { $0.bytes.append(contentsOf: bytes) } }
    func end() { state.withLock { $0.ended = true } }
    var isEnded: Bool { state.withLock { $0.ended } }
    var text: String { String(decoding: state.withLock { $0.bytes }, as: UTF8.self) }
}

/// The child's pid, or why it did not start: resumed once, by whichever comes first.
private final class StartSignal: Sendable {
    private let state = Mutex<(result: Result<Int32, any Error>?, waiter: CheckedContinuation<Int32, any Error>?)>((nil, nil))

    func resume(with result: Result<Int32, any Error>) {
        let waiter: CheckedContinuation<Int32, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    var value: Int32 {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Int32, any Error>? = state.withLock { state in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
