/// When a server closes a connection whose peer does not keep up its side, sans I/O (times are seconds on a
/// monotonic clock the caller reads).
///
/// A peer must complete its first frame within `firstFrame` of connecting, finish any frame it started within
/// `partialFrame`, be established (a finished key exchange, or a message under a key the server knows) within
/// `establish` of connecting, and complete some frame at least every `idle` (clients ping well within it: Telethon
/// every 60 s, `ping_delay_disconnect` every 60–75 s). A peer that sends half a frame, nothing, or a key exchange it
/// never finishes holds a connection only that long (before, for as long as it liked).
public struct ReadDeadline: Sendable, Equatable {
    public struct Limits: Sendable, Equatable {
        public var firstFrame: Double
        public var partialFrame: Double
        public var establish: Double
        public var idle: Double

        /// A key exchange takes three round trips and milliseconds of server CPU, but its steps queue behind other
        /// exchanges on a busy server's thread pool (a test suite's load held some for over 20 s): 60 s leaves that
        /// room and still frees the descriptor of a peer that never means to finish (which, before, could idle for
        /// `idle`). Strangers cannot lock clients out meanwhile: at capacity the oldest of them makes room.
        public init(firstFrame: Double = 30, partialFrame: Double = 30, establish: Double = 60, idle: Double = 300) {
            self.firstFrame = firstFrame
            self.partialFrame = partialFrame
            self.establish = establish
            self.idle = idle
        }
    }

    public let limits: Limits
    private let opened: Double
    private var lastFrame: Double
    private var sawFrame = false
    private var partialSince: Double?
    public private(set) var isEstablished = false

    public init(limits: Limits, now: Double) {
        self.limits = limits
        lastFrame = now
        opened = now
    }

    /// The connection finished a key exchange or carries a known key: `establish` no longer applies.
    public mutating func established() {
        isEstablished = true
    }

    /// Bytes arrived: `frames` frames were completed, and a frame is left unfinished when `partial`.
    public mutating func received(frames: Int, partial: Bool, now: Double) {
        if frames > 0 {
            lastFrame = now
            sawFrame = true
            partialSince = nil
        }
        if partial, partialSince == nil { partialSince = now }
        if !partial { partialSince = nil }
    }

    /// The time at which the connection is to be closed if nothing changes.
    public var deadline: Double {
        var quiet = lastFrame + (sawFrame ? limits.idle : limits.firstFrame)
        if !isEstablished { quiet = min(quiet, opened + limits.establish) }
        return partialSince.map { min(quiet, $0 + limits.partialFrame) } ?? quiet
    }

    public func hasExpired(at now: Double) -> Bool { now >= deadline }
}
