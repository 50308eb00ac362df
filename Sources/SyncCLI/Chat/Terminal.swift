#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation

/// The controlling terminal of `synccore chat`: raw mode on the alternate screen while it runs (put back as it was on
/// every exit path the process controls), keys read by a thread of its own that blocks in `read` (no polling: an idle
/// screen costs no CPU), resizes from SIGWINCH, and frames written as the lines that changed since the last one.
final class Terminal: @unchecked Sendable {
    private var saved = termios()
    private var frames = TerminalFrames()
    private let output = FileHandle.standardOutput
    private var resizeSource: DispatchSourceSignal?

    /// Takes the terminal; nil when standard input or output is not one.
    init?() {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var raw = saved
        cfmakeraw(&raw)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { return nil }
        write("\u{1B}[?1049h\u{1B}[2J")
    }

    /// Gives the terminal back as it was.
    func restore() {
        resizeSource?.cancel()
        write("\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }

    var size: (width: Int, height: Int) {
        var window = winsize()
        #if canImport(Glibc)
        let request = UInt(TIOCGWINSZ)
        #else
        let request = TIOCGWINSZ
        #endif
        guard ioctl(STDOUT_FILENO, request, &window) == 0, window.ws_col > 0, window.ws_row > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// What `read` returns from standard input, chunk by chunk, until it ends.
    func keyBytes() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                continuation.yield(Array(buffer[..<count]))
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }

    /// One element per SIGWINCH.
    func resizes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.resume()
        resizeSource = source
        return stream
    }

    /// Draws `lines` at the cursor position `cursor` (1-based), writing only the rows that changed
    /// (`TerminalFrames`). Returns the rows written.
    @discardableResult
    func draw(_ lines: [String], cursor: (row: Int, column: Int)) -> Int {
        let (output, written) = frames.next(lines, cursor: cursor, size: size)
        write(output)
        return written
    }

    private func write(_ text: String) {
        output.write(Data(text.utf8))
    }
}

/// What to write for the next frame (sans-I/O): the rows that differ from the last frame, each by a cursor move and
/// the row's text (rows are exactly the width, so nothing is left of the old one), all of them after a resize.
struct TerminalFrames {
    private var previous: [String] = []
    private var previousSize = (width: 0, height: 0)

    mutating func next(_ lines: [String], cursor: (row: Int, column: Int), size: (width: Int, height: Int)) -> (output: String, rows: Int) {
        var frame = ""
        if size != previousSize {
            frame += "\u{1B}[2J"
            previous = []
            previousSize = size
        }
        var written = 0
        for (index, line) in lines.enumerated() where index >= previous.count || previous[index] != line {
            frame += "\u{1B}[\(index + 1);1H" + line
            written += 1
        }
        previous = lines
        return (frame + "\u{1B}[\(cursor.row);\(cursor.column)H", written)
    }
}
