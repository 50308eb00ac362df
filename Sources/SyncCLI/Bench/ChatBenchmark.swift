#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Postbox
import SyncEngine
import SyncHarness

struct ChatBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "synccore chat: the redraw for a new message in a 100,000-message chat, and the CPU it uses while idle."
    )

    @OptionGroup var options: BenchOptions
    @Option(help: "Messages in the chat.") var messages = 100_000
    @Option(help: "Seconds the idle screen is watched.") var idleSeconds = 10.0

    func run() async throws {
        let benchmark = ChatBenchmark(messages: messages, idleSeconds: idleSeconds)
        options.report(try await benchmark.run(), title: "synccore chat: \(messages) messages in the open chat, an 100x30 screen")
    }
}

/// `synccore bench chat`. The redraw: a store with `messages` messages in one chat, the chat list's rows and the chat's
/// window open as `synccore chat` opens them; each new message is committed, and the time runs until both views have
/// answered and the frame (the rows that changed) is made — what a user waits for between the message arriving and
/// seeing it. Idle: a real `synccore chat` on a pseudo-terminal, logged in to a `synccore server` process, watched for
/// `idleSeconds` after its first screen settled: its CPU time (/proc, Linux) and the bytes it wrote meanwhile.
struct ChatBenchmark {
    static let targetMilliseconds = 16.0
    static let samples = 200
    static let (width, height) = (100, 30)

    var messages: Int
    var idleSeconds: Double

    func run() async throws -> [BenchFigure] {
        let directory = try ServerBenchmark.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (p50, p99, rows) = try await redraw(path: directory + "/chat.sqlite")
        var figures = [
            BenchFigure(bench: "chat.redraw_p50", value: p50, unit: "ms", target: Self.targetMilliseconds, higherIsBetter: false,
                        note: "commit of a new message → both views → the frame; \(Self.samples) messages"),
            BenchFigure(bench: "chat.redraw_p99", value: p99, unit: "ms", target: Self.targetMilliseconds, higherIsBetter: false),
            BenchFigure(bench: "chat.rows_per_redraw", value: rows, unit: "rows", target: nil, higherIsBetter: false,
                        note: "of \(Self.height): the rows written for one new message"),
        ]
        #if canImport(Glibc)
        let (cpu, bytes) = try await idle(directory: directory)
        figures.append(BenchFigure(bench: "chat.idle_cpu", value: cpu, unit: "ms/s", target: 1, higherIsBetter: false,
                                   note: "CPU of an idle synccore chat process over \(Int(idleSeconds)) s"))
        figures.append(BenchFigure(bench: "chat.idle_output", value: Double(bytes), unit: "bytes", target: 0, higherIsBetter: false,
                                   note: "what it wrote to its terminal meanwhile"))
        #endif
        return figures
    }

    static let peer = PeerID(namespace: StoreMapping.userNamespace, id: 1001)

    static func message(_ id: Int32) -> Message {
        Message(id: MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: id), timestamp: 1_700_000_000 + id,
                flags: [.incoming], author: peer, text: "message number \(id), of a realistic length for a chat line")
    }

    private func redraw(path: String) async throws -> (p50: Double, p99: Double, rows: Double) {
        let postbox = try Postbox.open(at: path)
        for start in stride(from: 1, through: messages, by: 1_000) {
            let batch = (start..<min(messages + 1, start + 1_000)).map { Self.message(Int32($0)) }
            _ = try await postbox.transaction { tx in try tx.addMessages(batch) }
        }
        _ = try await postbox.transaction { tx in try tx.setChatListInclusion(Self.peer, included: true) }
        var screen = ChatScreen()
        screen.visibleMessages = Self.height - 5
        var rows = postbox.view(ChatRowsView(count: 200)).makeAsyncIterator()
        var history = postbox.view(ChatHistoryView(peer: Self.peer, count: screen.windowCount)).makeAsyncIterator()
        guard let firstRows = try await rows.next(), let firstWindow = try await history.next() else { throw BenchError.mismatch("no view") }
        screen.showRows(firstRows.snapshot)
        _ = screen.openChat(Self.peer)
        _ = screen.showConversation(firstWindow.snapshot, of: Self.peer)
        var frames = TerminalFrames()
        _ = frames.next(ChatScreenLayout.lines(of: screen, width: Self.width, height: Self.height, me: "Bob", now: 0), cursor: (1, 1),
                        size: (Self.width, Self.height))
        var times: [Double] = []
        var written = 0
        for index in 1...Self.samples {
            let start = ContinuousClock.now
            let message = Self.message(Int32(messages + index))
            _ = try await postbox.transaction { tx in try tx.addMessages([message]) }
            guard let newRows = try await rows.next(), let window = try await history.next() else { throw BenchError.mismatch("a view ended") }
            screen.showRows(newRows.snapshot)
            _ = screen.showConversation(window.snapshot, of: Self.peer)
            let lines = ChatScreenLayout.lines(of: screen, width: Self.width, height: Self.height, me: "Bob", now: 0)
            let (output, rowsWritten) = frames.next(lines, cursor: ChatScreenLayout.cursor(of: screen, width: Self.width, height: Self.height),
                                                    size: (Self.width, Self.height))
            guard output.contains("message number \(message.id.id),") else { throw BenchError.mismatch("the new message is not in the frame") }
            times.append((ContinuousClock.now - start).seconds * 1000)
            written += rowsWritten
        }
        times.sort()
        return (times[times.count / 2], times[times.count * 99 / 100], Double(written) / Double(Self.samples))
    }

    #if canImport(Glibc)
    /// A `synccore chat` of Bob's on a pseudo-terminal: its CPU milliseconds per second and its output while nothing
    /// happens.
    private func idle(directory: String) async throws -> (cpu: Double, bytes: Int) {
        let executable = ServerProcess.executable()
        let key = directory + "/server.pem"
        let server = try await ServerProcess(executable: executable, arguments: [
            "--data", directory + "/server", "--seed", "dev", "--login-code", "12345", "--log-level", "error", "--export-public-key", key])
        defer { Task { await server.stop() } }
        let account = directory + "/bob"
        let login = Process()
        login.executableURL = executable
        login.arguments = ["login", "--server", "127.0.0.1:\(server.port)", "--key", key, "--phone", "+15550002", "--code", "12345", "--dir", account]
        login.standardOutput = FileHandle.nullDevice
        try login.run()
        login.waitUntilExit()
        guard login.terminationStatus == 0 else { throw BenchError.mismatch("synccore login failed") }

        var master: Int32 = 0, slave: Int32 = 0
        var size = winsize(ws_row: UInt16(Self.height), ws_col: UInt16(Self.width), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw BenchError.mismatch("no pseudo-terminal") }
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        let chat = Process()
        chat.executableURL = executable
        chat.arguments = ["chat", "--dir", account]
        (chat.standardInput, chat.standardOutput, chat.standardError) = (terminal, terminal, FileHandle.nullDevice)
        try chat.run()
        defer {
            _ = try? FileHandle(fileDescriptor: master).write(contentsOf: Data([0x03]))   // Ctrl-C: the app quits
            chat.waitUntilExit()
            close(master)
        }
        let screen = PseudoTerminalOutput(master)
        let deadline = ContinuousClock.now + .seconds(30)
        while !screen.text.contains("online") {
            guard ContinuousClock.now < deadline else { throw BenchError.mismatch("synccore chat did not draw its screen") }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .seconds(2))   // the chat list's fill and its redraws settle
        let (cpuBefore, bytesBefore) = (try Self.cpuMilliseconds(chat.processIdentifier), screen.bytes)
        try await Task.sleep(for: .seconds(idleSeconds))
        let (cpuAfter, bytesAfter) = (try Self.cpuMilliseconds(chat.processIdentifier), screen.bytes)
        return ((cpuAfter - cpuBefore) / idleSeconds, bytesAfter - bytesBefore)
    }

    /// The CPU time of every thread of `pid` in milliseconds, to the nanosecond (the first field of each
    /// /proc/PID/task/TID/schedstat; /proc/PID/stat counts in 10 ms ticks, too coarse for an idle process).
    static func cpuMilliseconds(_ pid: Int32) throws -> Double {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        var nanoseconds = 0.0
        for task in tasks {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                  let running = stat.split(separator: " ").first.flatMap({ Double($0) }) else { continue }   // a thread that ended
            nanoseconds += running
        }
        return nanoseconds / 1e6
    }
    #endif
}

#if canImport(Glibc)
/// Everything a pseudo-terminal's program writes, read on a thread of its own.
final class PseudoTerminalOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [UInt8] = []

    init(_ master: Int32) {
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                lock.withLock { received += buffer[..<count] }
            }
        }.start()
    }

    var bytes: Int { lock.withLock { received.count } }
    var text: String { lock.withLock { String(decoding: received, as: UTF8.self) } }
}
#endif
