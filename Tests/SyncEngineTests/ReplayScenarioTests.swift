import Foundation
import SyncTesting
import Testing
import TL

/// The sequencer's scenarios (core.telegram.org/api/updates), each a replay scenario (docs/REPLAY-FORMAT.md) with the
/// lines it must print under `expect`, run in-process through `ReplayRunner`, the runner `synccore replay` uses.
/// Every run is also checked for the box invariants: within a box, delivered pts strictly increase; the last line is
/// the state.
struct ReplayScenarioTests {
    static let directory = Bundle.module.url(forResource: "Scenarios", withExtension: nil)
    static let names: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory?.path ?? "")) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()

    @Test func thereAreAtLeastSixtyScenarios() {
        #expect(Self.names.count >= 60)
    }

    @Test(arguments: names)
    func scenarioPrintsItsExpectedLines(name: String) throws {
        let file = try #require(Self.directory?.appendingPathComponent(name))
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        guard case let .object(scenario) = try TLJSON.parse(text), case let .array(expected)? = scenario["expect"] else {
            Issue.record("\(name) has no expect"); return
        }
        let lines = try ReplayRunner.run(ReplayScenario(json: text)).map { try TLJSON.parse($0) }
        #expect(lines.count == expected.count, "\(name): \(lines.count) lines, \(expected.count) expected")
        for (index, (line, want)) in zip(lines, expected).enumerated() {
            #expect(line == want, "\(name) line \(index + 1): \(line.serialized()) ≠ \(want.serialized())")
        }
        try Self.checkInvariants(lines, name)
    }

    /// Delivered pts per box strictly increase (counters 0 are unordered or already placed by a difference).
    static func checkInvariants(_ lines: [TLJSON], _ name: String) throws {
        var last: [String: Int64] = [:]
        for line in lines {
            guard case let .object(object) = line, case let .object(update)? = object["deliver"],
                  case let .int(pts)? = update["pts"] ?? update["qts"], pts > 0 else { continue }
            let box: String
            if case let .int(channel)? = update["channel_id"] {
                box = "channel \(channel)"
            } else if case let .object(message)? = update["message"], case let .object(peer)? = message["peer_id"],
                      case let .int(channel)? = peer["channel_id"] {
                box = "channel \(channel)"
            } else {
                box = update["qts"] != nil ? "secondary" : "common"
            }
            let count: Int64 = if case let .int(value)? = update["pts_count"] { value } else { 0 }
            if let previous = last[box] {
                #expect(pts > previous || (count == 0 && pts == previous), "\(name): \(box) went from \(previous) to \(pts)")
                last[box] = pts
            } else {
                // §5: a channel box's first update with count 0 starts the box one below its pts.
                last[box] = box.hasPrefix("channel") && count == 0 ? pts - 1 : pts
            }
        }
        guard case let .object(final)? = lines.last else { Issue.record("\(name): no output"); return }
        #expect(final["state"] != nil, "\(name): the last line is not the state")
    }

    @Test func malformedScenariosNameTheField() {
        let cases: [(String, String)] = [
            (#"{"events": [{"at": 1, "reply": {"to": "updates.getDifference", "result": {"_": "updates.differenceEmpty", "date": 1, "seq": 1}}}]}"#, "events[0].reply"),
            (#"{"events": [{"at": 2}, {"at": 1}]}"#, "events[1].at"),
            (#"{"events": [{"at": 0, "push": {"_": "noSuchUpdates"}}]}"#, "events[0].push"),
            (#"{"state": {"pts": "ten"}}"#, "state.pts"),
        ]
        for (text, field) in cases {
            #expect(throws: ReplayScenarioError.self) { _ = try ReplayRunner.run(ReplayScenario(json: text)) }
            do {
                _ = try ReplayRunner.run(ReplayScenario(json: text))
            } catch {
                #expect(error.field == field, "\(text): \(error)")
            }
        }
    }
}
