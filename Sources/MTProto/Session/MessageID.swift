/// Message identifiers (core.telegram.org/mtproto/description#message-identifier-msg-id): about unixtime · 2^32,
/// strictly increasing per sender; client ids are ≡ 0 (mod 4), server ids ≡ 1 for responses and ≡ 3 otherwise.
public struct MessageIDGenerator: Sendable {
    public enum Kind: Int64, Sendable {
        case client = 0
        case serverResponse = 1
        case serverInitiated = 3
    }

    private var last: Int64 = 0

    public init() {}

    /// Forgets the last id, after the clock was corrected: ids must follow the corrected time, not stay ahead of it.
    public mutating func reset() {
        last = 0
    }

    /// The next id for `kind` at `now` (unix seconds, fractional).
    public mutating func next(_ kind: Kind, now: Double) -> Int64 {
        let time = Int64(now * 4_294_967_296)
        var id = (time & ~3) | kind.rawValue
        if id <= last { id = ((last & ~3) + 4) | kind.rawValue }
        last = id
        return id
    }
}

/// Why the server refuses a client message (the `error_code` of `bad_msg_notification`,
/// core.telegram.org/mtproto/service_messages_about_messages#notice-of-ignored-error-message).
public enum BadMessageCode: Int32, Sendable, Equatable {
    case messageIDTooLow = 16
    case messageIDTooHigh = 17
    case messageIDBadLowBits = 18
    case messageIDDuplicate = 19
    case messageTooOld = 20
    case seqnoTooLow = 32
    case seqnoTooHigh = 33
    case seqnoEvenExpected = 34
    case seqnoOddExpected = 35
    case badServerSalt = 48
    case invalidContainer = 64
}

/// The server's check of incoming client msg_ids: the time window (−300 s, +30 s), the low bits, and replays
/// (every id seen in the window is remembered; an id at or below the oldest forgotten one is too old to check: 20).
public struct MessageIDValidator: Sendable {
    public static let pastWindow: Int64 = 300
    public static let futureWindow: Int64 = 30
    /// How many recent ids are remembered for replay detection.
    public let capacity: Int
    private var seen: Set<Int64> = []
    private var order: [Int64] = []
    private var oldestForgotten: Int64 = 0

    public init(capacity: Int = 2_048) {
        self.capacity = capacity
    }

    /// Accepts `id` (and remembers it) or returns why not. `now` is the server's unix time.
    public mutating func check(_ id: Int64, now: Double) -> BadMessageCode? {
        if id & 3 != 0 { return .messageIDBadLowBits }
        let seconds = id >> 32
        let current = Int64(now)
        if seconds < current - Self.pastWindow { return .messageIDTooLow }
        if seconds > current + Self.futureWindow { return .messageIDTooHigh }
        if seen.contains(id) { return .messageIDDuplicate }
        if id <= oldestForgotten { return .messageTooOld }
        seen.insert(id)
        order.append(id)
        if order.count > capacity {
            let dropped = order.removeFirst()
            seen.remove(dropped)
            oldestForgotten = max(oldestForgotten, dropped)
        }
        return nil
    }
}

/// seqno (core.telegram.org/mtproto/description#message-sequence-number-msg-seqno): twice the number of
/// content-related messages sent before, plus one if this one is content-related.
public struct SequenceNumberGenerator: Sendable {
    private var contentRelatedCount: Int32 = 0

    public init() {}

    public mutating func next(contentRelated: Bool) -> Int32 {
        defer { if contentRelated { contentRelatedCount &+= 1 } }
        return contentRelatedCount &* 2 &+ (contentRelated ? 1 : 0)
    }
}
