import Foundation
import SyncTesting
import Testing

/// The deterministic simulation (in-process server, virtual clock, every event chosen by the seed): a seed is one
/// run, byte for byte, so a failure found once replays exactly; and its checks have teeth.
@Suite(.timeLimit(.minutes(5)))
struct DeterministicSimulationTests {
    static func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("dsim-\(UUID().uuidString)").path
    }

    @Test(arguments: [3, 17, 42] as [UInt64]) func aSeedGivesTheSameTraceEveryTime(seed: UInt64) async throws {
        let (first, second) = (Self.scratch(), Self.scratch())
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        let one = try await DeterministicSimulation.run(seed: seed, directory: first)
        let again = try await DeterministicSimulation.run(seed: seed, directory: second)
        #expect(one.violations == [])
        #expect(one.trace.count > 100, "a run does something: \(one.trace.count) trace lines")
        #expect(one.trace == again.trace)
        if let line = zip(one.trace, again.trace).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("first difference at line \(line.offset): \(line.element.0) | \(line.element.1)")
        }
        let other = try await DeterministicSimulation.run(seed: seed + 1, directory: first + "-other")
        try? FileManager.default.removeItem(atPath: first + "-other")
        #expect(other.trace != one.trace, "another seed, another run")
    }

    /// Seed 3 drives every component `Account` runs besides the sequencer — sends queued offline in the send log,
    /// sends that fail or whose answer is lost and are sent again, an open chat's hole filled page by page, the chat
    /// list filled, connections lost and reopened by the keeper (a refused attempt, a missing pong), an app restart —
    /// and still replays byte for byte.
    @Test func theOutboxTheFillersAndTheKeeperReplayByteForByte() async throws {
        let (first, second) = (Self.scratch(), Self.scratch())
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        let one = try await DeterministicSimulation.run(seed: 3, directory: first)
        let again = try await DeterministicSimulation.run(seed: 3, directory: second)
        #expect(one.violations == [])
        #expect(one.trace == again.trace)
        for (what, marker) in [("a send queued offline", "is offline: the send waits in its log"),
                               ("a send that failed, then retried", "→ the oldest send fails"),
                               ("a send confirmed", "← send result"),
                               ("a hole page", "→ getHistory("), ("an open chat", " opens "),
                               ("a chat-list page", "← chat list page: fetched"),
                               ("a lost connection", "the connection is lost"), ("a refused connect", "→ connect fails"),
                               ("a reconnect", "→ connect"), ("an app restart", "the app restarts")] {
            #expect(one.trace.contains { $0.contains(marker) }, "seed 3 exercises \(what)")
        }
    }

    @Test func manySeedsEndWithEveryStoreEqualToTheServer() async throws {
        for seed in UInt64(100)..<110 {   // CI's own step runs 500 seeds; these show the checks pass in the suite
            let directory = Self.scratch()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let run = try await DeterministicSimulation.run(seed: seed, directory: directory)
            #expect(run.violations == [], "seed \(seed)")
            #expect(run.messages > 0, "seed \(seed) sent messages")
        }
    }

    @Test func theChecksNoticeAStoreChangedBehindTheEnginesBack() async throws {
        let directory = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try await DeterministicSimulation.run(seed: 5, directory: directory, tamper: true)
        #expect(run.violations.contains { $0.hasPrefix("Bob /") && $0.contains("missing") }, "\(run.violations)")
    }
}
