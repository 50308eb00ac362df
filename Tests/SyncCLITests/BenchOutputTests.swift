import Foundation
import Testing
import TL
@testable import SyncCLI

/// `synccore bench` output: the table and the one-object-per-line JSON that machines read.
struct BenchOutputTests {
    @Test func jsonLineHasTheAgreedFields() throws {
        let figure = BenchFigure(bench: "tl.decode", value: 1_234_567.4, unit: "msg/s", target: 1_000_000)
        let json = try TLJSON.parse(figure.jsonLine())
        guard case let .object(object) = json else { Issue.record("not an object"); return }
        #expect(object["bench"] == .string("tl.decode"))
        #expect(object["value"] == .int(1_234_567))
        #expect(object["unit"] == .string("msg/s"))
        #expect(object["target"] == .int(1_000_000))
        #expect(object["higher_is_better"] == .bool(true))
        #expect(object["ratio"] == .double(1.235))
    }

    @Test func ratioFollowsTheDirectionOfTheTarget() {
        #expect(BenchFigure(bench: "a", value: 2, unit: "ms", target: 1, higherIsBetter: false).ratio == 0.5)
        #expect(BenchFigure(bench: "a", value: 2, unit: "x", target: 1).ratio == 2)
        #expect(BenchFigure(bench: "a", value: 0, unit: "requests", target: 0, higherIsBetter: false).ratio == 1)
        #expect(BenchFigure(bench: "a", value: 3, unit: "requests", target: 0, higherIsBetter: false).ratio == 0)
        #expect(BenchFigure(bench: "a", value: 2, unit: "x", target: nil).ratio == nil)
    }

    @Test func tableMarksFiguresBelowTarget() {
        let table = BenchTable.render([
            BenchFigure(bench: "fast", value: 2_000_000, unit: "msg/s", target: 1_000_000),
            BenchFigure(bench: "slow", value: 10, unit: "msg/s", target: 1_000_000),
        ], title: "t")
        #expect(table.contains("fast"))
        #expect(table.split(separator: "\n").first { $0.hasPrefix("slow") }?.contains("BELOW TARGET") == true)
        #expect(table.split(separator: "\n").first { $0.hasPrefix("fast") }?.hasSuffix("ok") == true)
    }

    @Test func tlBenchmarkMeasuresARealDifference() throws {
        let figures = try TLBenchmark(secondsPerFigure: 0.05).run()
        #expect(figures.map(\.bench) == ["tl.encode", "tl.decode", "tl.encode_bytes", "tl.decode_bytes", "tl.difference_size"])
        #expect(figures.allSatisfy { $0.value > 0 })
        for figure in figures { #expect((try? TLJSON.parse(figure.jsonLine())) != nil) }
        guard case let .difference(difference) = TLBenchmark.makeDifference() else { Issue.record("not a difference"); return }
        #expect(difference.newMessages.count == TLBenchmark.messageCount)
    }

    /// `synccore bench login` measures a real first login on an in-process two-DC server (issue #6's count).
    @Test func theLoginBenchCountsTwoConnectionsAndNoHTTP() async throws {
        let figures = try await LoginBenchmark().run()
        let byName = Dictionary(uniqueKeysWithValues: figures.map { ($0.bench, $0) })
        #expect(byName["net.login_tcp"]?.value == 2)
        #expect(byName["net.login_http"]?.value == 0)
        #expect(byName["net.login_tcp"]?.ratio == 1)
    }
}
