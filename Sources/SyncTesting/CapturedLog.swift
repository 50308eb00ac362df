import Logging
import Synchronization

/// A logger whose lines a test reads back: "LEVEL message key=value …", metadata sorted by key.
public final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger writing here, at `level` and above.
    public func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    public var all: [String] { lines.withLock { $0 } }

    /// How many lines contain `text`.
    public func count(_ text: String) -> Int { all.filter { $0.contains(text) }.count }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let pairs = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            log.append("\(event.level) \(event.message)\(pairs.isEmpty ? "" : " " + pairs)")
        }
    }
}
