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
    /// The remembered ids in arrival order, as a ring: `order[next]` is the oldest once the ring is full.
    private var order: [Int64] = []
    private var next = 0
    private var oldestForgotten: Int64 = 0
    /// Ids below it are refused as too low: a session this server takes over from another process accepts only what
    /// was sent after (`ReplayWindows.takeOver`).
    private let floor: Int64

    public init(capacity: Int = 2_048, floor: Int64 = 0) {
        self.capacity = max(1, capacity)
        self.floor = floor
    }

    /// Accepts `id` (and remembers it) or returns why not. `now` is the server's unix time.
    public mutating func check(_ id: Int64, now: Double) -> BadMessageCode? {
        if id & 3 != 0 { return .messageIDBadLowBits }
        let seconds = id >> 32
        let current = Int64(now)
        if seconds < current - Self.pastWindow { return .messageIDTooLow }
        if seconds > current + Self.futureWindow { return .messageIDTooHigh }
        if id < floor { return .messageIDTooLow }
        if seen.contains(id) { return .messageIDDuplicate }
        if id <= oldestForgotten { return .messageTooOld }
        seen.insert(id)
        if order.count < capacity {
            order.append(id)
        } else {
            let dropped = order[next]
            seen.remove(dropped)
            oldestForgotten = max(oldestForgotten, dropped)
            order[next] = id
            next = (next + 1) % capacity
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

/// The server's check that client seqnos grow with msg_ids (core.telegram.org/mtproto/service_messages_about_messages):
/// 32 when an earlier msg_id carried a higher seqno (or the same odd one), 33 when a later msg_id carried a lower
/// one (or the same odd one). Recent (msg_id, seqno) pairs are kept sorted by msg_id; as they are consistent with
/// each other, comparing a new pair with its two neighbours is enough. At least `capacity` pairs are kept.
public struct SequenceNumberValidator: Sendable {
    public let capacity: Int
    private var pairs: [(id: Int64, seqno: Int32)] = []

    public init(capacity: Int = 2_048) {
        self.capacity = capacity
    }

    public mutating func check(messageID: Int64, seqno: Int32) -> BadMessageCode? {
        var low = 0
        var high = pairs.count
        while low < high {
            let middle = (low + high) / 2
            if pairs[middle].id < messageID { low = middle + 1 } else { high = middle }
        }
        let odd = seqno & 1 == 1
        if low > 0 {
            let before = pairs[low - 1].seqno
            if before > seqno || (before == seqno && odd) { return .seqnoTooLow }
        }
        if low < pairs.count {
            let after = pairs[low].seqno
            if after < seqno || (after == seqno && odd) { return .seqnoTooHigh }
        }
        pairs.insert((messageID, seqno), at: low)
        // Trimmed in batches (at twice the capacity, back to it) so that each message does not shift the array.
        if pairs.count >= 2 * capacity { pairs.removeFirst(pairs.count - capacity) }
        return nil
    }
}
