import ArgumentParser
import Foundation
import SyncHarness

/// `synccore simulate`: the seeded whole-system fault simulation (server, three accounts and a faulty relay in this
/// process); prints one line per run and every failing run's seed, violations and plan. Exits non-zero on a failure.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the seeded fault simulation: every account's store must equal the server's truth.")

    @Option(help: "The first seed.") var first: UInt64 = 0
    @Option(help: "How many seeds (first, first+1, …).") var seeds: UInt64 = 100
    @Option(help: "Runs at a time.") var concurrency = 8
    @Option(help: "Steps per run.") var steps = 40
    @Flag(help: "Print every run, not only failures.") var verbose = false

    func run() async throws {
        let verbose = self.verbose
        let started = Date()
        let reports = await FaultSimulation.run(seeds: first..<(first + seeds), concurrency: concurrency, stepCount: steps) { report in
            if verbose || !report.passed { print(report) }
        }
        let failed = reports.filter { !$0.passed }
        let relayed = reports.map(\.relay).reduce(RelayCounters(), +)
        print("\(reports.count) runs in \(String(format: "%.1f", Date().timeIntervalSince(started))) s: \(reports.count - failed.count) passed, "
            + "\(failed.count) failed; \(relayed.frames) frames relayed, \(relayed.faults) faults injected (\(relayed.dropped) dropped, "
            + "\(relayed.duplicated) duplicated, \(relayed.delayed) delayed, \(relayed.cuts) cuts)")
        if !failed.isEmpty {
            print("failing seeds: \(failed.map { "\($0.seed)" }.joined(separator: " "))")
            throw ExitCode.failure
        }
    }
}
