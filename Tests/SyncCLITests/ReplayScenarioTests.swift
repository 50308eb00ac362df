import Foundation
import Testing
import TL

/// The sequencer's scenarios (updates-algorithm §1), each a `synccore replay` scenario with the lines it must print
/// under `expect`, run through the built executable as users run it. Every run is also checked for the invariants
/// of §1.10: within a box, delivered pts strictly increase; the last line is the state.
struct ReplayScenarioTests {
    static let directory = Bundle.module.url(forResource: "Scenarios", withExtension: nil)
    static let names: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory?.path ?? "")) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()

    static func run(_ arguments: [String], input: Data? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("synccore")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the synccore executable first")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let (output, errors, stdin) = (Pipe(), Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test func thereAreAtLeastFortyScenarios() {
        #expect(Self.names.count >= 40)
    }

    @Test(arguments: names)
    func scenarioPrintsItsExpectedLines(name: String) throws {
        let file = try #require(Self.directory?.appendingPathComponent(name))
        guard case let .object(scenario) = try TLJSON.parse(try Data(contentsOf: file)), case let .array(expected)? = scenario["expect"] else {
            Issue.record("\(name) has no expect"); return
        }
        let result = try Self.run(["replay", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map { try TLJSON.parse(String($0)) }
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
                // §1.5: a channel box's first update with count 0 starts the box one below its pts.
                last[box] = box.hasPrefix("channel") && count == 0 ? pts - 1 : pts
            }
        }
        guard case let .object(final)? = lines.last else { Issue.record("\(name): no output"); return }
        #expect(final["state"] != nil, "\(name): the last line is not the state")
    }

    @Test func malformedScenariosAreOneLineOnStandardErrorAndExitTwo() throws {
        let cases = [
            #"{"events": [{"at": 1, "reply": {"to": "updates.getDifference", "result": {"_": "updates.differenceEmpty", "date": 1, "seq": 1}}}]}"#,
            #"{"events": [{"at": 2}, {"at": 1}]}"#,
            #"{"events": [{"at": 0, "push": {"_": "noSuchUpdates"}}]}"#,
            #"{"events": "#,
            #"{"state": {"pts": "ten"}}"#,
        ]
        for text in cases {
            let result = try Self.run(["replay", "-"], input: Data(text.utf8))
            #expect(result.status == 2, "\(text)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.hasPrefix("synccore replay:"), "\(result.stderr)")
        }
        let missing = try Self.run(["replay", "/nonexistent/scenario.json"])
        #expect(missing.status == 2)
    }
}
