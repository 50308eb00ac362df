import ArgumentParser
import Foundation
import SyncHarness

/// `synccore simulate`: the seeded whole-system fault simulation (server, three accounts and a faulty relay in this
/// process); prints one line per run and every failing run's seed, violations and plan. Exits non-zero on a failure.
/// `--deterministic` runs `DeterministicSimulation` instead (in-process server, virtual clock, one schedule per seed).
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the seeded fault simulation: every account's store must equal the server's truth.")

    @Option(help: "The first seed.") var first: UInt64 = 0
    @Option(help: "How many seeds (first, first+1, …).") var seeds: UInt64 = 100
    @Option(help: "Runs at a time.") var concurrency = 8
    @Option(help: "Steps per run.") var steps = 40
    @Flag(help: "Print every run, not only failures.") var verbose = false
    @Flag(help: "The deterministic simulation: in-process server, virtual clock, every event chosen by the seed.")
    var deterministic = false
    @Option(help: "With --deterministic: write each run's trace to this directory (one file per seed).") var trace: String?

    func run() async throws {
        if deterministic { return try await runDeterministic() }
        let verbose = self.verbose
        let started = Date()
        let reports = await FaultSimulation.run(seeds: first..<(first + seeds), concurrency: concurrency,
                                                stepCount: steps) { report in
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

    private func runDeterministic() async throws {
        let started = Date()
        var failed: [UInt64] = []
        var messages = 0
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-dsim-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        if let trace { try FileManager.default.createDirectory(atPath: trace, withIntermediateDirectories: true) }
        for seed in first..<(first + seeds) {
            let directory = scratch + "/\(seed)"
            let run: DeterministicSimulation.Run
            do {
                run = try await DeterministicSimulation.run(seed: seed, steps: steps, directory: directory)
            } catch {
                print("seed \(seed): FAILED: \(error)")
                failed.append(seed)
                continue
            }
            try? FileManager.default.removeItem(atPath: directory)
            messages += run.messages
            if let trace { try (run.trace.joined(separator: "\n") + "\n").write(toFile: trace + "/\(seed).trace", atomically: true, encoding: .utf8) }
            if !run.violations.isEmpty {
                failed.append(seed)
                print("seed \(seed): FAILED, \(run.messages) messages, \(run.trace.count) trace lines")
                for violation in run.violations { print("  ✘ \(violation)") }
                print("  trace (last 60 lines; the whole with --trace):")
                for line in run.trace.suffix(60) { print("    \(line)") }
            } else if verbose {
                print("seed \(seed): passed, \(run.messages) messages, \(run.trace.count) trace lines")
            }
        }
        print("\(seeds) deterministic runs in \(String(format: "%.1f", Date().timeIntervalSince(started))) s: \(Int(seeds) - failed.count) passed, "
            + "\(failed.count) failed; \(messages) messages checked")
        if !failed.isEmpty {
            print("failing seeds: \(failed.map { "\($0)" }.joined(separator: " "))")
            throw ExitCode.failure
        }
    }
}
