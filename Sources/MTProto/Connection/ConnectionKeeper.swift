/// The delays of a `ConnectionKeeper`, in seconds (Telegram's apps' values by default; tests shorten them).
public struct ConnectionKeeperTiming: Sendable, Equatable {
    /// Seconds between pings on an open connection (Telegram's apps: 60).
    public var keepaliveInterval: Double
    /// Seconds a pong may take before the connection is taken for dead.
    public var pongTimeout: Double
    /// Seconds a connection must have stayed open for its close to start the backoff afresh.
    public var stableAfter: Double
    /// The longest wait between two attempts, in seconds.
    public var retryCap: Double

    public init(keepaliveInterval: Double = 60, pongTimeout: Double = 15, stableAfter: Double = 1, retryCap: Double = 30) {
        self.keepaliveInterval = keepaliveInterval
        self.pongTimeout = pongTimeout
        self.stableAfter = stableAfter
        self.retryCap = retryCap
    }

    /// What the server is asked to wait for the next ping before it closes the connection.
    public var disconnectDelay: Int32 { Int32(clamping: Int64(keepaliveInterval.rounded(.up)) + 15) }
}

/// The rules that keep one data center's connection alive, without I/O: it takes events (the connection opened,
/// failed, closed; a pong; the network came or went; the account wants the connection or not) and the time, and
/// returns what to do (connect, ping, close). The caller executes the actions and calls `fire` at `nextDeadline`.
///
/// - While wanted (an open, logged-in account's main data center) and the network is there, a connection is kept:
///   a closed or failed one is reopened after a backoff with jitter, so clients dropped together do not return
///   together: 0.1–0.5 s for the first three attempts (a restarting server is usually back within them), then
///   doubling from 0.5 s with up to 100% jitter, capped at `retryCap`. A connection that stayed up `stableAfter` seconds resets the
///   count; one that closes at once (a server in a crash loop) does not, so it is not hammered.
/// - Every open connection, wanted or not, sends `ping_delay_disconnect` each `keepaliveInterval`, asking the server
///   to close it when no ping follows within `interval + 15 s` (core.telegram.org/mtproto/service_messages, deferred
///   connection closure); a pong that does not come within `pongTimeout` means a dead path (a peer gone without a
///   FIN, a NAT that forgot the mapping): the connection is closed, and reopened if wanted.
/// - The network becoming available reconnects at once, without the backoff.
/// - A flood wait on the connection's first call (`retryAfter`) is sat out before the next attempt.
public struct ConnectionKeeper<RNG: RandomNumberGenerator> {
    public enum Action: Equatable, Sendable {
        /// Open a connection (report `connectionOpened` or `connectFailed`).
        case connect
        /// Send `ping_delay_disconnect(ping_id: id, disconnect_delay:)`; report `pongReceived(id)`.
        case ping(id: Int64, disconnectDelay: Int32)
        /// The connection is dead: close it (then report `connectionClosed`).
        case close
    }

    enum Phase: Equatable {
        /// No connection and none being opened; `retryAt` when one is due.
        case down(retryAt: Double?)
        case connecting
        case up(openedAt: Double, pingAt: Double, awaiting: Ping?)
    }

    struct Ping: Equatable {
        var id: Int64
        var deadline: Double
    }

    public let configuration: ConnectionKeeperTiming
    private(set) var phase: Phase = .down(retryAt: nil)
    public private(set) var wanted = false
    public private(set) var networkAvailable = true
    /// Attempts that failed (or connections that closed before `stableAfter`) since the last stable connection.
    public private(set) var failures = 0
    private var lastPingID: Int64 = 0
    private var random: RNG

    public init(configuration: ConnectionKeeperTiming = ConnectionKeeperTiming(), random: RNG) {
        self.configuration = configuration
        self.random = random
    }

    public var isConnected: Bool { if case .up = phase { true } else { false } }

    /// When `fire` has something to do: a retry, a ping, a pong deadline.
    public var nextDeadline: Double? {
        switch phase {
        case let .down(retryAt): retryAt
        case .connecting: nil
        case let .up(_, pingAt, awaiting): awaiting?.deadline ?? pingAt
        }
    }

    // MARK: events

    /// The account wants this connection kept (open and logged in) or no longer does.
    public mutating func setWanted(_ wanted: Bool, now: Double) -> [Action] {
        self.wanted = wanted
        guard case let .down(retryAt) = phase else { return [] }
        guard wanted, networkAvailable else { phase = .down(retryAt: nil); return [] }
        return retryAt == nil ? connectNow() : []
    }

    /// The platform's reachability. Away: nothing is attempted (the caller closes its connections). Back: connect now.
    public mutating func setNetworkAvailable(_ available: Bool, now: Double) -> [Action] {
        guard available != networkAvailable else { return [] }
        networkAvailable = available
        guard case .down = phase else { return [] }
        if !available { phase = .down(retryAt: nil); return [] }
        failures = 0
        return wanted ? connectNow() : []
    }

    /// A connection opened (by `connect`, or by a request that needed one).
    public mutating func connectionOpened(now: Double) -> [Action] {
        phase = .up(openedAt: now, pingAt: now + configuration.keepaliveInterval, awaiting: nil)
        return []
    }

    /// An attempt to connect failed; `retryAfter` is a flood wait the server asked for, in seconds.
    public mutating func connectFailed(now: Double, retryAfter: Double? = nil) -> [Action] {
        failures += 1
        return scheduleRetry(now: now, atLeast: retryAfter ?? 0)
    }

    /// The connection closed (by either side, or after `close`).
    public mutating func connectionClosed(now: Double) -> [Action] {
        if case let .up(openedAt, _, _) = phase {
            failures = now - openedAt >= configuration.stableAfter ? 0 : failures + 1
        }
        return scheduleRetry(now: now, atLeast: 0)
    }

    /// The connection answered a call: it works (a path later cut by the network, not a server that closes what it
    /// accepts), so its close starts the backoff afresh.
    public mutating func connectionWorked(now: Double) -> [Action] {
        guard case let .up(_, pingAt, awaiting) = phase else { return [] }
        failures = 0
        phase = .up(openedAt: -.infinity, pingAt: pingAt, awaiting: awaiting)
        return []
    }

    public mutating func pongReceived(id: Int64, now: Double) -> [Action] {
        guard case let .up(openedAt, pingAt, awaiting?) = phase, awaiting.id == id else { return [] }
        phase = .up(openedAt: openedAt, pingAt: pingAt, awaiting: nil)
        return []
    }

    /// Time passed: a due retry connects, a due ping goes out, a pong past its deadline closes the connection.
    public mutating func fire(now: Double) -> [Action] {
        switch phase {
        case let .down(retryAt?) where retryAt <= now:
            return wanted && networkAvailable ? connectNow() : []
        case let .up(openedAt, pingAt, awaiting):
            if let awaiting, awaiting.deadline <= now {
                phase = .up(openedAt: openedAt, pingAt: .infinity, awaiting: nil)   // closing: nothing more is due
                return [.close]
            }
            guard awaiting == nil, pingAt <= now else { return [] }
            lastPingID += 1
            phase = .up(openedAt: openedAt, pingAt: now + configuration.keepaliveInterval,
                        awaiting: Ping(id: lastPingID, deadline: now + configuration.pongTimeout))
            return [.ping(id: lastPingID, disconnectDelay: configuration.disconnectDelay)]
        default:
            return []
        }
    }

    // MARK: internals

    private mutating func connectNow() -> [Action] {
        phase = .connecting
        return [.connect]
    }

    private mutating func scheduleRetry(now: Double, atLeast floor: Double) -> [Action] {
        guard wanted, networkAvailable else {
            phase = .down(retryAt: nil)
            return []
        }
        phase = .down(retryAt: now + max(floor, backoff()))
        return []
    }

    /// 0.1–0.5 s for the first three retries, then 0.5 s doubling with up to 100% jitter, at most `retryCap`.
    mutating func backoff() -> Double {
        let unit = Double(random.next() >> 11) / Double(1 << 53)
        if failures <= 2 { return 0.1 + 0.4 * unit }
        let base = 0.5 * Double(1 << min(failures - 3, 16))
        return min(configuration.retryCap, base * (1 + unit))
    }
}
