import MTProto

/// Every delay the engine waits for, with the values of core.telegram.org/api/updates and TDLib by default. The rules
/// never change with them; a simulation shortens them all so that a run that would take minutes of real waiting
/// (gap waits, backoff, the silence that fetches a difference) takes a second.
public struct SyncTiming: Sendable {
    /// How long a possible pts or seq gap may wait for the missing updates (0.5 s).
    public var possibleGapWait: Double
    /// Silence after which a box fetches its difference (15 minutes).
    public var noUpdatesTimeout: Double
    /// A transient failure (5xx, network) is retried after `retryBase × 2^failures` seconds, at most `retryCap`
    /// (1, 2, 4 … 60 s), or after the server's flood wait.
    public var retryBase: Double
    /// The longest backoff between retries, in seconds.
    public var retryCap: Double
    /// TCP connect plus key exchange (10 s).
    public var connectTimeout: Duration
    /// Each answer (30 s).
    public var requestTimeout: Duration

    /// Telegram's values unless given: a 0.5 s gap wait, 15 minutes of silence before a difference, and backoff.
    public init(possibleGapWait: Double = 0.5, noUpdatesTimeout: Double = 900, retryBase: Double = 1, retryCap: Double = 60,
                connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30)) {
        self.possibleGapWait = possibleGapWait
        self.noUpdatesTimeout = noUpdatesTimeout
        self.retryBase = retryBase
        self.retryCap = retryCap
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
    }

    /// Telegram's values.
    public static let standard = SyncTiming()

    /// The delay before retrying after `failures` earlier failures, or nil when `error` is not transient: 5xx, `-503`
    /// and flood waits are; the rest (a bad request, an auth error) are not (UPDATE-RULES §7, TDLib's backoff).
    public func retryDelay(_ error: RPCError, failures: Int) -> Double? {
        if let seconds = error.floodWaitSeconds { return Double(seconds) }
        guard error.code >= 500 || error.code == -503 || error.code < 0 else { return nil }
        return min(retryCap, retryBase * Double(1 << min(failures, 16)))
    }
}
