import Foundation

/// `synccore bench sync --plot FILE.svg`: the live-latency histogram and the catch-up curve, as one self-contained SVG
/// (no plotting dependency: two panels of rectangles and a polyline).
struct BenchPlot {
    /// Live delivery latencies, ms.
    var latencies: [Double]
    /// Catch-up progress: (seconds since the restart, messages stored).
    var catchUp: [(seconds: Double, messages: Int)]

    static let width = 720.0, panelHeight = 260.0, margin = 48.0

    func svg() -> String {
        let height = Self.panelHeight * 2 + Self.margin * 3
        var parts = ["<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(height))\" "
            + "font-family=\"sans-serif\" font-size=\"12\">",
                     "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>"]
        parts += histogram(top: Self.margin)
        parts += curve(top: Self.margin * 2 + Self.panelHeight)
        parts.append("</svg>")
        return parts.joined(separator: "\n") + "\n"
    }

    /// 40 bins from 0 to the 99.9th percentile (slower messages counted in the last bin).
    private func histogram(top: Double) -> [String] {
        let sorted = latencies.sorted()
        guard let last = sorted.last else { return [text("no live latencies", x: Self.margin, y: top)] }
        let ceiling = max(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.999))], 0.001)
        let binCount = 40
        var bins = [Int](repeating: 0, count: binCount)
        for value in sorted { bins[min(binCount - 1, Int(value / ceiling * Double(binCount)))] += 1 }
        let tallest = Double(bins.max() ?? 1)
        let plotWidth = Self.width - Self.margin * 2, barWidth = plotWidth / Double(binCount)
        var parts = [text("Live delivery latency (ms): \(sorted.count) messages, p50 \(format(sorted[sorted.count / 2])), "
            + "p99 \(format(sorted[min(sorted.count - 1, sorted.count * 99 / 100)])), max \(format(last))", x: Self.margin, y: top - 12)]
        for (index, count) in bins.enumerated() where count > 0 {
            let barHeight = Double(count) / tallest * Self.panelHeight
            parts.append("<rect x=\"\(format(Self.margin + Double(index) * barWidth))\" y=\"\(format(top + Self.panelHeight - barHeight))\" "
                + "width=\"\(format(barWidth - 1))\" height=\"\(format(barHeight))\" fill=\"#4a7ab0\"/>")
        }
        parts += axis(top: top, label: "0 … \(format(ceiling)) ms (p99.9)")
        return parts
    }

    private func curve(top: Double) -> [String] {
        guard let end = catchUp.last, end.seconds > 0, end.messages > 0 else {
            return [text("no catch-up samples", x: Self.margin, y: top)]
        }
        let plotWidth = Self.width - Self.margin * 2
        let points = catchUp.map { sample in
            "\(format(Self.margin + sample.seconds / end.seconds * plotWidth)),"
                + "\(format(top + Self.panelHeight - Double(sample.messages) / Double(end.messages) * Self.panelHeight))"
        }
        var parts = [text("Catch-up: \(end.messages) messages stored in \(format(end.seconds)) s "
            + "(\(Int(Double(end.messages) / end.seconds)) msg/s)", x: Self.margin, y: top - 12)]
        parts.append("<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#b0574a\" stroke-width=\"2\"/>")
        parts += axis(top: top, label: "0 … \(format(end.seconds)) s")
        return parts
    }

    private func axis(top: Double, label: String) -> [String] {
        let bottom = top + Self.panelHeight
        return ["<line x1=\"\(format(Self.margin))\" y1=\"\(format(bottom))\" x2=\"\(format(Self.width - Self.margin))\" y2=\"\(format(bottom))\" stroke=\"black\"/>",
                "<line x1=\"\(format(Self.margin))\" y1=\"\(format(top))\" x2=\"\(format(Self.margin))\" y2=\"\(format(bottom))\" stroke=\"black\"/>",
                text(label, x: Self.margin, y: bottom + 16)]
    }

    private func text(_ string: String, x: Double, y: Double) -> String {
        let escaped = string.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return "<text x=\"\(format(x))\" y=\"\(format(y))\">\(escaped)</text>"
    }

    private func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
