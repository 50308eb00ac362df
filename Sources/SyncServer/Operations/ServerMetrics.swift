import Metrics
import Prometheus
import Synchronization

/// The server's metrics through swift-metrics (core.telegram.org has none to cite; the names follow Prometheus
/// conventions): sessions online, RPCs by method and outcome, pushes and dropped pushes, differences served, pts
/// assigned. Without a bootstrapped backend swift-metrics discards them at no cost.
enum ServerMetrics {
    static func rpc(_ method: String, failed: Bool) {
        Counter(label: "synccore_rpcs_total", dimensions: [("method", method), ("outcome", failed ? "error" : "ok")]).increment()
    }

    static func sessions(_ count: Int) {
        Gauge(label: "synccore_sessions").record(count)
    }

    static func pushes(delivered: Int, dropped: Int) {
        if delivered > 0 { Counter(label: "synccore_pushes_total").increment(by: delivered) }
        if dropped > 0 { Counter(label: "synccore_push_drops_total").increment(by: dropped) }
    }

    /// `kind`: the constructor answered (`updates.differenceSlice`, `updates.channelDifference`, …).
    static func difference(_ kind: String) {
        Counter(label: "synccore_differences_total", dimensions: [("kind", kind)]).increment()
    }

    /// pts handed out by a box (user or channel), counted when the event is logged.
    static func ptsAssigned(_ count: Int32, box: String) {
        Counter(label: "synccore_pts_assigned_total", dimensions: [("box", box)]).increment(by: Int(count))
    }
}

/// The process's Prometheus registry, installed as the swift-metrics backend the first time a server asks for a
/// metrics endpoint (swift-metrics allows one bootstrap per process).
public enum PrometheusExport {
    private static let installed = Mutex<PrometheusCollectorRegistry?>(nil)

    public static func registry() -> PrometheusCollectorRegistry {
        installed.withLock { installed in
            if let registry = installed { return registry }
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            installed = registry
            return registry
        }
    }
}
