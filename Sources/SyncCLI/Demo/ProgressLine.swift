import Foundation

/// One line of progress for long steps: redrawn in place on a terminal, printed every few seconds otherwise (a log
/// file or a pipe gets lines, not carriage returns).
struct ProgressLine {
    private let isTerminal = isatty(STDOUT_FILENO) != 0
    private var lastPrint: ContinuousClock.Instant?
    private let label: String

    init(_ label: String) {
        self.label = label
    }

    mutating func show(_ done: Int, of total: Int, _ detail: String) {
        let now = ContinuousClock.now
        if let lastPrint, now - lastPrint < (isTerminal ? .milliseconds(100) : .seconds(3)) { return }
        lastPrint = now
        let line = "\(label) \(Self.bar(done, of: total)) \(detail)"
        if isTerminal {
            print("\r\u{1B}[K" + line, terminator: "")
            fflush(nil)
        } else {
            print(line)
        }
    }

    /// Ends the line with its final state.
    func finish(_ detail: String) {
        let line = "\(label) \(Self.bar(1, of: 1)) \(detail)"
        print(isTerminal ? "\r\u{1B}[K" + line : line)
    }

    static func bar(_ done: Int, of total: Int, width: Int = 24) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int(fraction * Double(width))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "] "
            + String(format: "%3.0f%%", fraction * 100)
    }
}
