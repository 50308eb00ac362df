import Metrics
import Prometheus

/// A gauge a storage reports when metrics are scraped (not on every change: the pool's counts move on every call).
public struct StorageGauge: Sendable, Equatable {
    public let name: String
    public let value: Double

    public init(name: String, value: Double) {
        self.name = name
        self.value = value
    }
}

/// What `/metrics` serves: the storage's gauges read at the scrape, then the registry's exposition with a `# HELP`
/// line before every metric's `# TYPE` line. swift-prometheus takes HELP texts only from metrics made on the registry
/// directly, and the server makes its metrics through swift-metrics (whose factory passes none), so the texts are
/// kept here, one per name, and written into the exposition.
enum MetricsExposition {
    static let help: [String: String] = [
        "synccore_rpcs_total": "RPCs answered, by method and outcome (ok, or an rpc_error).",
        "synccore_sessions": "MTProto sessions online (logged-in connections that get pushes).",
        "synccore_pushes_total": "Updates pushed to sessions.",
        "synccore_push_drops_total": "Pushes dropped for a session that could not take them (its client catches up by getDifference).",
        "synccore_differences_total": "Differences served, by the constructor answered.",
        "synccore_pts_assigned_total": "pts handed out by committed writes, by box (user or channel).",
        "synccore_storage_errors_total": "Storage failures that reached a handler (answered 500), by kind: unavailable, database, closed, other.",
        "synccore_storage_write_seconds": "Seconds from a handler's write to its commit, group commit included.",
        "synccore_postgres_connections_in_use": "PostgreSQL connections running a transaction now.",
        "synccore_postgres_connections_idle": "PostgreSQL connections open and idle in the pool.",
        "synccore_postgres_waiting": "Transactions waiting for a pool thread (all connections busy).",
        "synccore_postgres_listener_connected": "1 while the commit feed's listening connection is up (pushes of other processes' commits arrive), 0 while it reconnects.",
    ]

    /// The exposition of `registry` after recording `gauges`.
    static func render(_ registry: PrometheusCollectorRegistry, gauges: [StorageGauge]) -> [UInt8] {
        for gauge in gauges { Gauge(label: gauge.name).record(gauge.value) }
        return Array(annotated(registry.emitToString()).utf8)
    }

    /// `text` with `# HELP name …` before each `# TYPE name …` line that has none.
    static func annotated(_ text: String) -> String {
        var lines: [Substring] = []
        var previous: Substring = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), !previous.hasPrefix("# HELP ") {
                let name = line.dropFirst("# TYPE ".count).prefix { $0 != " " }
                if let text = help[String(name)] { lines.append("# HELP \(name) \(text)") }
            }
            lines.append(line)
            previous = line
        }
        return lines.joined(separator: "\n")
    }
}
