import Foundation
import Testing
import TL

/// `synccore replay` as users run it: a scenario on standard input prints JSON lines ending in the state, and a
/// malformed one is one line on standard error and exit 2. The scenarios themselves run in-process in
/// SyncEngineTests.
struct ReplayCommandTests {
    @Test func aScenarioOnStandardInputPrintsJSONLinesEndingInTheState() async throws {
        let scenario = #"{"state": {"pts": 10, "date": 5}, "known_users": [555], "events": [{"at": 0, "reply": {"to": "updates.getDifference", "result": {"_": "updates.differenceEmpty", "date": 6, "seq": 0}}}, {"at": 0.1, "push": {"_": "updateShortMessage", "id": 1, "user_id": 555, "message": "hi", "pts": 11, "pts_count": 1, "date": 7}}]}"#
        let result = try await SynccoreBinary.run(["replay", "-"], input: Data(scenario.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map { try TLJSON.parse(String($0)) }
        guard case let .object(first)? = lines.first, case let .object(request)? = first["request"],
              case let .object(last)? = lines.last, case let .object(state)? = last["state"] else {
            Issue.record("unexpected output: \(result.stdout)"); return
        }
        #expect(request["_"] == .string("updates.getDifference"))
        #expect(state["pts"] == .int(11))
        #expect(lines.count == 3)
    }

    @Test func malformedScenariosAreOneLineOnStandardErrorAndExitTwo() async throws {
        let cases = [
            #"{"events": [{"at": 1, "reply": {"to": "updates.getDifference", "result": {"_": "updates.differenceEmpty", "date": 1, "seq": 1}}}]}"#,
            #"{"events": [{"at": 2}, {"at": 1}]}"#,
            #"{"events": [{"at": 0, "push": {"_": "noSuchUpdates"}}]}"#,
            #"{"events": "#,
            #"{"state": {"pts": "ten"}}"#,
        ]
        for text in cases {
            let result = try await SynccoreBinary.run(["replay", "-"], input: Data(text.utf8))
            #expect(result.status == 2, "\(text)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.hasPrefix("synccore replay:"), "\(result.stderr)")
        }
        let missing = try await SynccoreBinary.run(["replay", "/nonexistent/scenario.json"])
        #expect(missing.status == 2)
    }
}
