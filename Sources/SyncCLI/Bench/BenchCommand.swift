import ArgumentParser
import Foundation

/// `synccore bench …`: release-build benchmarks that print figures beside their targets.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run benchmarks (build with -c release) and print figures beside their targets.",
        subcommands: [TLBenchCommand.self, CryptoBenchCommand.self, PostboxBenchCommand.self, ServerBenchCommand.self,
                      LoginBenchCommand.self, SyncBenchCommand.self, MediaBenchCommand.self, ChatBenchCommand.self, AllBenchCommand.self]
    )
}

/// Options every bench subcommand shares.
struct BenchOptions: ParsableArguments {
    @Flag(help: "Print one JSON object per figure instead of the table.") var json = false
    @Option(help: "Seconds to measure each figure.") var seconds: Double = 2

    func report(_ figures: [BenchFigure], title: String) {
        if json {
            for figure in figures { print(figure.jsonLine()) }
        } else {
            #if DEBUG
            print("warning: this is a debug build; figures are only meaningful with `swift run -c release synccore bench`")
            #endif
            print(BenchTable.render(figures, title: title), terminator: "")
        }
    }
}

struct TLBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tl",
        abstract: "Encode and decode rate of an updates.difference with 100 realistic messages."
    )

    @OptionGroup var options: BenchOptions

    func run() throws {
        let figures = try TLBenchmark(secondsPerFigure: options.seconds).run()
        options.report(figures, title: "TL codec: updates.difference with \(TLBenchmark.messageCount) messages (\(ProcessInfo.processInfo.activeProcessorCount) cores)")
    }
}

struct CryptoBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crypto",
        abstract: "AES-256-IGE beside OpenSSL's AES-256-CBC, AES-256-CTR, and server-side auth-key exchanges per second."
    )

    @OptionGroup var options: BenchOptions

    func run() throws {
        let benchmark = CryptoBenchmark(secondsPerFigure: options.seconds)
        options.report(try benchmark.run(), title: "MTProto crypto (\(benchmark.implementationNote))")
    }
}

struct PostboxBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postbox",
        abstract: "Bulk apply, commits with many live views, and commit-to-snapshot latency of the client store."
    )

    @OptionGroup var options: BenchOptions

    func run() async throws {
        options.report(try await PostboxBenchmark().run(), title: "Postbox (SQLite through GRDB, WAL, synchronous=NORMAL)")
    }
}

struct ServerBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Reference server over loopback TCP: send rate with 8 senders, getDifference serving rate, RSS per idle session."
    )

    @OptionGroup var options: BenchOptions
    @Option(help: "Idle sessions for server.session_rss.") var sessions = 10_000
    @Option(help: "Measure one figure only: send, difference or session_rss (for profiling).")
    var only: ServerBenchmark.Figure?
    @Option(help: "Measure two server processes on PostgreSQL instead: a fresh database is made (and dropped) in the cluster this postgres:// URL reaches.")
    var postgres: String?

    func run() async throws {
        if let postgres {
            let figures = try await PostgresServerBenchmark(url: postgres, seconds: max(options.seconds, 1)).run()
            return options.report(figures, title: "Reference server, 2 processes on PostgreSQL (\(ProcessInfo.processInfo.activeProcessorCount) cores)")
        }
        let benchmark = ServerBenchmark(seconds: max(options.seconds, 1), sessions: sessions)
        let figures = try await benchmark.run(only: only.map { [$0] } ?? ServerBenchmark.Figure.allCases)
        options.report(figures, title: "Reference server (SQLite, synchronous=FULL, \(ProcessInfo.processInfo.activeProcessorCount) cores)")
    }
}

struct LoginBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "TCP connections and HTTP requests of a first login on a two-DC server, started on the wrong DC."
    )

    @OptionGroup var options: BenchOptions

    func run() async throws {
        options.report(try await LoginBenchmark().run(), title: "First login through ConnectionManager (two DCs, loopback)")
    }
}

struct SyncBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Client core end to end: live delivery latency into a history view, a 100,000-message catch-up, and an idle account's resume after server restarts."
    )

    @OptionGroup var options: BenchOptions
    @Option(help: "Messages timed one by one for the live latency.") var live = 1_000
    @Option(help: "Messages missed while offline for the catch-up.") var missed = 100_000
    @Option(help: "Server restarts timed for the idle account's resume.") var restarts = 20
    @Option(help: "Write the live-latency histogram and the catch-up curve to this SVG file.") var plot: String?

    func run() async throws {
        let (figures, samples) = try await SyncBenchmark(liveMessages: max(live, 1), missedMessages: max(missed, 1),
                                                         restarts: max(restarts, 1)).run()
        options.report(figures, title: "Sync engine end to end (in-process server, loopback, Postbox per account)")
        if let plot {
            let svg = BenchPlot(latencies: samples.latencies, catchUp: samples.catchUp).svg()
            do {
                try svg.write(toFile: plot, atomically: true, encoding: .utf8)
            } catch {
                throw ValidationError("cannot write the plot to \(plot): \(error.localizedDescription)")
            }
            if !options.json { print("plot written to \(plot)") }
        }
    }
}

/// `synccore bench all`: every benchmark in turn, each with its table (or JSON lines), `--plot` passed to `sync`.
struct AllBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "all", abstract: "Run every benchmark in turn.")

    @OptionGroup var options: BenchOptions
    @Option(help: "Write sync's live-latency histogram and catch-up curve to this SVG file.") var plot: String?

    func run() async throws {
        let shared = (options.json ? ["--json"] : []) + ["--seconds", "\(options.seconds)"]
        let tl = try TLBenchCommand.parse(shared)
        try tl.run()
        let crypto = try CryptoBenchCommand.parse(shared)
        separate()
        try crypto.run()
        var commands: [any AsyncParsableCommand] = [
            try PostboxBenchCommand.parse(shared), try ServerBenchCommand.parse(shared), try LoginBenchCommand.parse(shared),
            try SyncBenchCommand.parse(shared + (plot.map { ["--plot", $0] } ?? [])),
        ]
        for index in commands.indices {
            separate()
            try await commands[index].run()
        }
    }

    private func separate() {
        if !options.json { print("") }
    }
}
