import Foundation

/// One line of progress for long steps: redrawn in place on a terminal, printed every few seconds otherwise (a log
/// file or a pipe gets lines, not carriage returns).
struct ProgressLine {
    private let isTerminal = isatty(STDOUT_FILENO) != 0
    private var lastPrint: ContinuousClock.Instant?
    private let label: String
    /// Print nothing unless stdout is a terminal (for commands whose output is data, such as `history`).
    private let terminalOnly: Bool

    init(_ label: String, terminalOnly: Bool = false) {
        self.label = label
        self.terminalOnly = terminalOnly
    }

    mutating func show(_ done: Int, of total: Int, _ detail: String) {
        if terminalOnly && !isTerminal { return }
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

    /// Removes the line (on a terminal; nothing was printed elsewhere when `terminalOnly`).
    func clear() {
        if isTerminal { print("\r\u{1B}[K", terminator: "") }
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
