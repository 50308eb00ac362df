import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
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

    /// `synccore bench login` measures a real first login on an in-process two-DC server (issue #6's count). Run as
    /// the built executable, as users run it.
    @Test func theLoginBenchCountsTwoConnectionsAndNoHTTP() async throws {
        let result = try await SynccoreBinary.run(["bench", "login", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        var values: [String: TLJSON] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard case let .object(object) = try TLJSON.parse(String(line)), case let .string(name)? = object["bench"] else {
                Issue.record("not a figure: \(line)"); continue
            }
            values[name] = object["value"]
        }
        func number(_ json: TLJSON?) -> Double? {
            switch json {
            case let .int(value)?: Double(value)
            case let .double(value)?: value
            default: nil
            }
        }
        #expect(number(values["net.login_tcp"]) == 2)
        #expect(number(values["net.login_http"]) == 0)
    }
}

/// `bench sync --plot`: one well-formed SVG with a bar per non-empty latency bin and the catch-up polyline.
struct BenchPlotTests {
    final class Elements: NSObject, XMLParserDelegate {
        var names: [String] = []
        var polylinePoints = 0
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            names.append(name)
            if name == "polyline" { polylinePoints = attributes["points"]?.split(separator: " ").count ?? 0 }
        }
    }

    @Test func theSVGHasTheHistogramAndTheCurve() throws {
        let latencies = [0.5, 0.6, 0.6, 0.7, 2.0] + Array(repeating: 0.55, count: 95)
        let curve = (0...10).map { (seconds: Double($0) * 0.1, messages: $0 * 1_000) }
        let svg = BenchPlot(latencies: latencies, catchUp: curve).svg()
        let parser = XMLParser(data: Data(svg.utf8))
        let elements = Elements()
        parser.delegate = elements
        #expect(parser.parse(), "not well-formed: \(parser.parserError.map { "\($0)" } ?? "")")
        #expect(elements.names.first == "svg")
        let bars = elements.names.filter { $0 == "rect" }.count - 1   // the background
        #expect(bars >= 3 && bars <= 40)
        #expect(elements.polylinePoints == curve.count)
        #expect(svg.contains("100 messages") && svg.contains("10000 messages stored in 1.00 s"))
    }
}
