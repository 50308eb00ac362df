import Postbox

/// The hole manager's rules, without I/O (TelegramCore's managed history holes): it takes what the open views need
/// (`viewsChanged`), completed fetches and the time, and returns which fetches to start or cancel.
///
/// - One fetch at a time per hole key (peer, namespace, space).
/// - A completed fetch puts exactly that fetch on a `cooldown` (20 s): a server that had nothing more is not asked
///   the same question in a loop, while a fetch that shrank the hole leaves the views asking a new one at once.
/// - A completed fetch re-evaluates what the views need.
/// - A fetch whose views went away lingers `linger` (0.5 s) in case a view asks for it again (a list scrolled back,
///   a chat reopened), then is cancelled.
/// - A view anchored inside a hole (both its sides name the same hole) fetches around its anchor.
public struct HoleFetchPlanner: Sendable {
    /// What the filler is told to do.
    public enum Action: Hashable, Sendable {
        case start(HoleFetch)
        case cancel(HoleFetch)
    }

    /// Seconds before the same fetch may run again.
    public static let cooldown = 20.0
    /// Seconds a fetch whose view went away is kept before it is cancelled (a view reopened at once keeps it).
    public static let linger = 0.5

    private var wanted: [HoleKey: HoleFetch] = [:]
    /// Running fetches by key, with when their views went away.
    private var running: [HoleKey: (fetch: HoleFetch, orphanedAt: Double?)] = [:]
    private var coolingUntil: [HoleFetch: Double] = [:]

    public init() {}

    /// The fetches started and not finished.
    public var runningFetches: [HoleFetch] { running.values.map(\.fetch) }

    /// The open views now need `requests` (Postbox's holes view: the union of every history view's).
    public mutating func viewsChanged(_ requests: Set<HoleRequest>, now: Double) -> [Action] {
        wanted = Self.fetches(for: requests)
        return evaluate(now: now)
    }

    /// `fetch` ended (filled something, nothing, or failed): cooldown for it, then what the views need now.
    public mutating func completed(_ fetch: HoleFetch, now: Double) -> [Action] {
        if running[fetch.key]?.fetch == fetch { running[fetch.key] = nil }
        coolingUntil[fetch] = now + Self.cooldown
        return evaluate(now: now)
    }

    /// Time passed: lingering fetches past their grace are cancelled, cooled-down fetches may start.
    public mutating func fire(now: Double) -> [Action] { evaluate(now: now) }

    /// When `fire` has something to do.
    public var nextDeadline: Double? {
        let lingering = running.values.compactMap { $0.orphanedAt.map { $0 + Self.linger } }
        let cooling = wanted.values.compactMap { fetch in coolingUntil[fetch] }
        return (lingering + cooling).min()
    }

    // MARK: internals

    /// One fetch per key: `around` when a view's anchor is inside the hole both its sides name, else the older
    /// side first (the latest messages view's), then the newer.
    static func fetches(for requests: Set<HoleRequest>) -> [HoleKey: HoleFetch] {
        var byKey: [HoleKey: [HoleRequest]] = [:]
        for request in requests { byKey[request.key, default: []].append(request) }
        var chosen: [HoleKey: HoleFetch] = [:]
        for (key, requests) in byKey {
            let sorted = requests.sorted { ($0.direction == .older ? 0 : 1, $0.hole.lowerBound, $0.anchor) < ($1.direction == .older ? 0 : 1, $1.hole.lowerBound, $1.anchor) }
            let inside = sorted.first { request in
                request.hole.contains(request.anchor) && request.anchor > request.hole.lowerBound && request.anchor < request.hole.upperBound
                    && sorted.contains { $0 != request && $0.hole == request.hole && $0.anchor == request.anchor && $0.direction != request.direction }
            }
            if let inside { chosen[key] = HoleFetch(inside, around: true) } else if let first = sorted.first { chosen[key] = HoleFetch(first) }
        }
        return chosen
    }

    /// A stable order of keys, so the same inputs give the same actions in the same order.
    private static func order(_ lhs: HoleKey, _ rhs: HoleKey) -> Bool {
        (lhs.peer.rawValue, lhs.namespace, "\(lhs.space)") < (rhs.peer.rawValue, rhs.namespace, "\(rhs.space)")
    }

    private mutating func evaluate(now: Double) -> [Action] {
        var actions: [Action] = []
        coolingUntil = coolingUntil.filter { $0.value > now }
        for (key, entry) in running.sorted(by: { Self.order($0.key, $1.key) }) {
            if wanted[key] == entry.fetch {
                running[key]?.orphanedAt = nil   // asked for again: reused
            } else if let orphanedAt = entry.orphanedAt {
                if orphanedAt + Self.linger <= now {
                    running[key] = nil
                    actions.append(.cancel(entry.fetch))
                }
            } else {
                running[key]?.orphanedAt = now
            }
        }
        for (key, fetch) in wanted.sorted(by: { Self.order($0.key, $1.key) })
        where running[key] == nil && coolingUntil[fetch] == nil {
            running[key] = (fetch, nil)
            actions.append(.start(fetch))
        }
        return actions
    }
}
