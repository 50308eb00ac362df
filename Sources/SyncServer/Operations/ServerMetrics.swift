import Metrics
import Prometheus
import Synchronization

/// The server's metrics through swift-metrics (core.telegram.org has none to cite; the names follow Prometheus
/// conventions): sessions online, RPCs by method and outcome, pushes and dropped pushes, differences served, pts
/// assigned. Without a bootstrapped backend swift-metrics discards them.
///
/// The counters of the send path are made once and kept (`KeptCounter`): making a `Counter` per event asked the
/// metrics factory each time, inside the storage writer among other places.
enum ServerMetrics {
    private static let rpcs = KeptCounters(label: "synccore_rpcs_total")
    private static let pushesDelivered = KeptCounter(label: "synccore_pushes_total")
    private static let pushesDropped = KeptCounter(label: "synccore_push_drops_total")
    private static let userPts = KeptCounter(label: "synccore_pts_assigned_total", dimensions: [("box", "user")])
    private static let channelPts = KeptCounter(label: "synccore_pts_assigned_total", dimensions: [("box", "channel")])

    static func rpc(_ method: String, failed: Bool) {
        rpcs.counter(method: method, failed: failed).increment()
    }

    static func sessions(_ count: Int) {
        Gauge(label: "synccore_sessions").record(count)
    }

    static func pushes(delivered: Int, dropped: Int) {
        if delivered > 0 { pushesDelivered.counter.increment(by: delivered) }
        if dropped > 0 { pushesDropped.counter.increment(by: dropped) }
    }

    /// `kind`: the constructor answered (`updates.differenceSlice`, `updates.channelDifference`, …).
    static func difference(_ kind: String) {
        Metrics.Counter(label: "synccore_differences_total", dimensions: [("kind", kind)]).increment()
    }

    /// pts handed out by a box, counted when the event is logged.
    static func ptsAssigned(_ count: Int32, channel: Bool) {
        (channel ? channelPts : userPts).counter.increment(by: Int(count))
    }
}

/// One counter made once per metrics backend: remade when a backend is bootstrapped, so it never stays bound to the
/// discarding default.
private final class KeptCounter: Sendable {
    private let label: String
    private let dimensions: [(String, String)]
    private let kept = Mutex<(generation: Int, counter: Metrics.Counter?)>((0, nil))

    init(label: String, dimensions: [(String, String)] = []) {
        self.label = label
        self.dimensions = dimensions
    }

    var counter: Metrics.Counter {
        let generation = PrometheusExport.generation
        return kept.withLock { kept in
            if kept.generation == generation, let counter = kept.counter { return counter }
            let counter = Metrics.Counter(label: label, dimensions: dimensions)
            kept = (generation, counter)
            return counter
        }
    }
}

/// `synccore_rpcs_total` by method and outcome, each counter made once per backend.
private final class KeptCounters: Sendable {
    private let label: String
    private let kept = Mutex<(generation: Int, ok: [String: Metrics.Counter], failed: [String: Metrics.Counter])>((0, [:], [:]))

    init(label: String) {
        self.label = label
    }

    func counter(method: String, failed: Bool) -> Metrics.Counter {
        let generation = PrometheusExport.generation
        return kept.withLock { kept in
            if kept.generation != generation { kept = (generation, [:], [:]) }
            if let counter = failed ? kept.failed[method] : kept.ok[method] { return counter }
            let counter = Metrics.Counter(label: label, dimensions: [("method", method), ("outcome", failed ? "error" : "ok")])
            if failed { kept.failed[method] = counter } else { kept.ok[method] = counter }
            return counter
        }
    }
}

/// The process's Prometheus registry, installed as the swift-metrics backend the first time a server asks for a
/// metrics endpoint (swift-metrics allows one bootstrap per process).
public enum PrometheusExport {
    private static let installed = Mutex<PrometheusCollectorRegistry?>(nil)
    private static let bootstraps = Atomic<Int>(0)

    /// Changes when a backend is bootstrapped (metrics made before then discard what they record).
    static var generation: Int { bootstraps.load(ordering: .acquiring) }

    public static func registry() -> PrometheusCollectorRegistry {
        installed.withLock { installed in
            if let registry = installed { return registry }
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            installed = registry
            bootstraps.add(1, ordering: .releasing)
            return registry
        }
    }
}
