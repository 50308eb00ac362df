import ArgumentParser
import Foundation

/// `synccore demo`: the whole system on an embedded server, as a newcomer's first command (README). It logs Alice and
/// Bob in through the client core on two data centers, exchanges live messages, takes Bob offline while Alice sends
/// 100,000 messages and posts in @news, brings him back through a catch-up, scrolls his @news history into the hole
/// the catch-up left, and checks his store against the server's truth. Exits non-zero when the check fails.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole system on an embedded server (two DCs, SQLite) and verify the result.")

    @Flag(help: "A small version: 2,000 missed messages and 150 posts.") var quick = false
    @Option(help: "The server's data directory (default: a temporary one, removed at the end).") var data: String?
    @Option(help: "Messages Alice sends while Bob is offline (default 100,000; 2,000 with --quick).") var messages: Int?
    @Option(help: "Posts in @news while Bob is offline (default 400; 150 with --quick).") var posts: Int?
    @Option(help: "Live messages each way.") var live = 5

    func run() async throws {
        let plan = DemoPlan(missed: max(1, messages ?? (quick ? 2_000 : 100_000)), posts: max(2, posts ?? (quick ? 150 : 400)),
                            live: max(1, live))
        let temporary = data == nil
        let directory = data ?? FileManager.default.temporaryDirectory.appendingPathComponent("synccore-demo-\(UUID().uuidString)").path
        defer { if temporary { try? FileManager.default.removeItem(atPath: directory) } }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw DemoError("the demo stopped: \(directory) is not a directory")
        }
        let started = ContinuousClock.now
        let outcome: DemoOutcome
        do {
            outcome = try await DemoScenario(plan: plan, directory: directory).run()
        } catch {
            throw DemoError("the demo stopped: \(error)")
        }
        let seconds = (ContinuousClock.now - started).seconds
        print("")
        print("Summary")
        print("  live delivery       p50 \(Self.ms(outcome.latency(0.5)))  p99 \(Self.ms(outcome.latency(0.99)))  (\(outcome.latencies.count) messages, send → the other's history view)")
        print("  catch-up            \(outcome.missed.formatted()) messages in \(String(format: "%.2f", outcome.catchUpSeconds)) s "
            + "(\(Int(Double(outcome.missed) / max(outcome.catchUpSeconds, 0.001)).formatted()) msg/s, difference slices of "
            + "\(DemoPlan.sliceSize.formatted()))")
        print("  history hole        \(outcome.holeWindows) windows scrolled, \(outcome.holeMessages) @news posts fetched on demand")
        print("  TCP connections     Alice \(outcome.connections.alice), Bob \(outcome.connections.bob)")
        print("  total               \(String(format: "%.1f", seconds)) s")
        if outcome.problems.isEmpty {
            print("  verification        ✓ Bob's store equals the server's truth (\(outcome.verified))")
        } else {
            print("  verification        ✘ Bob's store differs from the server's truth:")
            for problem in outcome.problems { print("    \(problem)") }
            throw ExitCode.failure
        }
    }

    static func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
}

/// How big the demo is.
struct DemoPlan: Sendable {
    static let sliceSize = 1_000
    let missed: Int
    let posts: Int
    let live: Int
}

/// What the demo measured and found.
struct DemoOutcome: Sendable {
    var latencies: [Double] = []
    var missed = 0
    var catchUpSeconds = 0.0
    var holeWindows = 0
    var holeMessages = 0
    var connections = (alice: 0, bob: 0)
    var verified = ""
    var problems: [String] = []

    func latency(_ percentile: Double) -> Double {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * percentile))]
    }
}
