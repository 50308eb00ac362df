import Metrics
import Prometheus
import Synchronization

/// The server's metrics through swift-metrics (core.telegram.org has none to cite; the names follow Prometheus
/// conventions): sessions online, RPCs by method and outcome, pushes and dropped pushes, differences served, pts
/// assigned. Without a bootstrapped backend swift-metrics discards them.
///
/// The counters of the send path are made once and kept (`KeptCounters`): making a `Counter` per event asked the
/// metrics factory each time, inside the storage writer among other places.
enum ServerMetrics {
    private static let rpcsOK = KeptCounters {
        Metrics.Counter(label: "synccore_rpcs_total", dimensions: [("method", $0), ("outcome", "ok")])
    }
    private static let rpcsFailed = KeptCounters {
        Metrics.Counter(label: "synccore_rpcs_total", dimensions: [("method", $0), ("outcome", "error")])
    }
    private static let pushesDelivered = KeptCounters { _ in Metrics.Counter(label: "synccore_pushes_total") }
    private static let pushesDropped = KeptCounters { _ in Metrics.Counter(label: "synccore_push_drops_total") }
    private static let ptsAssigned = KeptCounters {
        Metrics.Counter(label: "synccore_pts_assigned_total", dimensions: [("box", $0)])
    }

    static func rpc(_ method: String, failed: Bool) {
        (failed ? rpcsFailed : rpcsOK).counter(method).increment()
    }

    static func sessions(_ count: Int) {
        Gauge(label: "synccore_sessions").record(count)
    }

    static func pushes(delivered: Int, dropped: Int) {
        if delivered > 0 { pushesDelivered.counter().increment(by: delivered) }
        if dropped > 0 { pushesDropped.counter().increment(by: dropped) }
    }

    /// `kind`: the constructor answered (`updates.differenceSlice`, `updates.channelDifference`, …).
    static func difference(_ kind: String) {
        Metrics.Counter(label: "synccore_differences_total", dimensions: [("kind", kind)]).increment()
    }

    private static let storageErrors = KeptCounters {
        Metrics.Counter(label: "synccore_storage_errors_total", dimensions: [("kind", $0)])
    }

    /// A storage failure that reached a handler, by kind: `unavailable` (the database could not be reached),
    /// `database` (it refused a statement), `closed` (the server is stopping), `other`.
    static func storageError(_ error: any Error) {
        let kind = switch error as? ServerStorageError {
        case .unavailable?: "unavailable"
        case .database?: "database"
        case .closed?: "closed"
        default: "other"
        }
        storageErrors.counter(kind).increment()
    }

    private static let writeSeconds = KeptTimer { Metrics.Timer(label: "synccore_storage_write_seconds") }

    /// A write committed: the pts its boxes handed out (`WriteTally`), and how long it took from the handler's call to
    /// the commit (group commit included).
    static func committed(_ tally: WriteTally, seconds: Double) {
        if tally.user > 0 { ptsAssigned.counter("user").increment(by: tally.user) }
        if tally.channel > 0 { ptsAssigned.counter("channel").increment(by: tally.channel) }
        writeSeconds.timer().recordNanoseconds(Int64(max(0, seconds) * 1e9))
    }
}

/// A timer made on first use and kept until a metrics backend is bootstrapped (as `KeptCounters`).
private final class KeptTimer: Sendable {
    private let make: @Sendable () -> Metrics.Timer
    private let kept = Mutex<(generation: Int, timer: Metrics.Timer?)>((0, nil))

    init(_ make: @escaping @Sendable () -> Metrics.Timer) {
        self.make = make
    }

    func timer() -> Metrics.Timer {
        let generation = PrometheusExport.generation
        return kept.withLock { kept in
            if kept.generation == generation, let timer = kept.timer { return timer }
            let timer = make()
            kept = (generation, timer)
            return timer
        }
    }
}

/// Counters of one metric by one dimension value, each made on first use and kept until a metrics backend is
/// bootstrapped (then made again, so none stays bound to the discarding default).
private final class KeptCounters: Sendable {
    private let make: @Sendable (String) -> Metrics.Counter
    private let kept = Mutex<(generation: Int, byValue: [String: Metrics.Counter])>((0, [:]))

    init(_ make: @escaping @Sendable (String) -> Metrics.Counter) {
        self.make = make
    }

    func counter(_ value: String = "") -> Metrics.Counter {
        let generation = PrometheusExport.generation
        return kept.withLock { kept in
            if kept.generation != generation { kept = (generation, [:]) }
            if let counter = kept.byValue[value] { return counter }
            let counter = make(value)
            kept.byValue[value] = counter
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
