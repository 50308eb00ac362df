import Foundation
import TL

/// One measured figure of `synccore bench`, printed in the table and as one JSON line with `--json`:
/// `{"bench": "tl.decode", "value": 1234567, "unit": "msg/s", "target": 1000000, "higher_is_better": true}`.
struct BenchFigure: Sendable {
    var bench: String
    var value: Double
    var unit: String
    var target: Double?
    var higherIsBetter: Bool = true
    var note: String = ""

    /// value / target (or target / value when lower is better): ≥ 1 means the target is met.
    var ratio: Double? {
        guard let target else { return nil }
        // A count that must stay at zero (`net.login_http`): met or not.
        if !higherIsBetter && target == 0 { return value == 0 ? 1 : 0 }
        guard target > 0, value > 0 else { return nil }
        return higherIsBetter ? value / target : target / value
    }

    func jsonLine() -> String {
        var object = TLJSONObject()
        object.append("bench", .string(bench))
        object.append("value", Self.number(value))
        object.append("unit", .string(unit))
        object.append("target", target.map(Self.number) ?? .null)
        object.append("higher_is_better", .bool(higherIsBetter))
        if let ratio { object.append("ratio", .double((ratio * 1000).rounded() / 1000)) }
        if !note.isEmpty { object.append("note", .string(note)) }
        return TLJSON.object(object).serialized()
    }

    /// Whole numbers from 100 up (rates, sizes), three decimals below.
    static func number(_ value: Double) -> TLJSON {
        guard value.isFinite else { return .null }
        if abs(value) >= 100 && abs(value) < 1e15 { return .int(Int64(value.rounded())) }
        return .double((value * 1000).rounded() / 1000)
    }
}

/// Prints figures as an aligned table: name, value, unit, target, ratio and whether the target is met.
enum BenchTable {
    static func render(_ figures: [BenchFigure], title: String) -> String {
        let header = ["figure", "value", "unit", "target", "ratio", ""]
        var rows = [header]
        for figure in figures {
            let ratio = figure.ratio.map { String(format: "%.2fx", $0) } ?? "-"
            let verdict = figure.ratio.map { $0 >= 1 ? "ok" : "BELOW TARGET" } ?? ""
            rows.append([
                figure.bench, format(figure.value), figure.unit,
                figure.target.map { (figure.higherIsBetter ? "≥ " : "≤ ") + format($0) } ?? "-", ratio, verdict,
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var out = title + "\n"
        for (index, row) in rows.enumerated() {
            let cells = row.enumerated().map { column, cell in
                column == 1 || column == 3 || column == 4
                    ? String(repeating: " ", count: widths[column] - cell.count) + cell
                    : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            out += cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
            if index == 0 { out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n" }
        }
        for figure in figures where !figure.note.isEmpty { out += "  \(figure.bench): \(figure.note)\n" }
        return out
    }

    static func format(_ value: Double) -> String {
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.4f", value)
    }
}
