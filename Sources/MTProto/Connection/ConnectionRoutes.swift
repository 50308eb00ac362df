/// Which connection carries a call and what goes before it, without I/O: the routing rules of `ConnectionManager`
/// (core.telegram.org/api/datacenter, /api/files#downloading-files, /api/invoking), decided here and executed there, so
/// each can be tested table by table without sockets. `RequestRecovery` holds the rules after a failure.
///
/// - A call goes to the data center it names, else to the home (master) one, which a migration moves.
/// - Ordinary calls share the data center's main connection; downloads go to a pool of worker connections on the same
///   key (each its own session): an idle worker, else a new one while fewer than `workersPerDataCenter` are open, else
///   the least busy. A data center with no key yet makes it on its main connection first, so the workers share one.
/// - A call to another data center than home, while logged in at home, first carries the login there
///   (`auth.exportAuthorization` at home, `auth.importAuthorization` there), once per data center and login.
/// - The first call on each connection is wrapped in `invokeWithLayer(initConnection(…))`; a worker's calls, and every
///   call of a manager that wants no pushes, go inside `invokeWithoutUpdates`.
/// - While the platform says the network is away, calls wait for it.
public struct ConnectionRoutes: Sendable, Equatable {
    /// What carries a call.
    public enum Kind: Sendable, Equatable {
        /// The data center's main connection (its updates, its session changes).
        case main
        /// A download worker of the data center.
        case download
    }

    /// Which worker takes a download.
    public enum WorkerChoice: Sendable, Equatable {
        /// The open worker at this index of the pool.
        case use(Int)
        /// A new worker, added to the pool.
        case open
    }

    /// A call's route, decided before it is sent.
    public struct Route: Sendable, Equatable {
        public var dc: Int32
        public var kind: Kind
        /// The data center has no key: its main connection makes it before a worker opens.
        public var makesKeyFirst: Bool
        /// The call goes inside `invokeWithoutUpdates`.
        public var withoutUpdates: Bool

        public init(dc: Int32, kind: Kind, makesKeyFirst: Bool = false, withoutUpdates: Bool = false) {
            self.dc = dc
            self.kind = kind
            self.makesKeyFirst = makesKeyFirst
            self.withoutUpdates = withoutUpdates
        }
    }

    /// What the rules read of the manager's state at the moment of a call.
    public struct Network: Sendable, Equatable {
        public var home: Int32
        /// The data centers this account has a key with.
        public var keys: Set<Int32>
        /// The account each data center's key is logged in as (none: a key without a login, or no key).
        public var logins: [Int32: Int64]
        public var pushesWanted: Bool
        public var available: Bool

        public init(home: Int32, keys: Set<Int32> = [], logins: [Int32: Int64] = [:], pushesWanted: Bool = true, available: Bool = true) {
            self.home = home
            self.keys = keys.union(logins.keys)
            self.logins = logins
            self.pushesWanted = pushesWanted
            self.available = available
        }
    }

    /// Download connections per data center besides the main one.
    public var workersPerDataCenter: Int

    public init(workersPerDataCenter: Int = 4) {
        self.workersPerDataCenter = workersPerDataCenter
    }

    /// Whether a call must wait for the network before anything is sent.
    public func waitsForNetwork(_ network: Network) -> Bool { !network.available }

    /// The route of a call to `dc` (home when nil).
    public func route(to dc: Int32?, download: Bool, in network: Network) -> Route {
        let target = dc ?? network.home
        guard download else { return Route(dc: target, kind: .main, withoutUpdates: !network.pushesWanted) }
        return Route(dc: target, kind: .download, makesKeyFirst: !network.keys.contains(target), withoutUpdates: true)
    }

    /// The worker of a pool (each entry: the calls in flight on one open worker) that takes the next download.
    public func worker(inFlight pool: [Int]) -> WorkerChoice {
        if let idle = pool.firstIndex(of: 0) { return .use(idle) }
        guard pool.count >= workersPerDataCenter, let least = pool.indices.min(by: { pool[$0] < pool[$1] }) else { return .open }
        return .use(least)
    }

    /// The account to carry to `dc` before a call there: the home login, when `dc` is not home and is not logged in as
    /// that account yet; nil when nothing is carried.
    public func authorizationToTransfer(to dc: Int32, in network: Network) -> Int64? {
        guard dc != network.home, let user = network.logins[network.home], network.logins[dc] != user else { return nil }
        return user
    }

    /// Whether a failed call went to the logged-in home data center (where a `401` is a logout elsewhere), unless the
    /// app's own logout is under way.
    public func wentToLoggedInHome(_ dc: Int32, in network: Network, loggingOut: Bool) -> Bool {
        dc == network.home && network.logins[dc] != nil && !loggingOut
    }
}
