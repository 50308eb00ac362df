/// The persisted update state of an account (core.telegram.org/api/updates): the common box's `pts`, the secondary
/// box's `qts`, the updates sequence `seq` with its `date`, and one `pts` per channel. Zero means unknown.
public struct SyncState: Codable, Equatable, Sendable {
    /// The common box: private chats and basic groups.
    public var pts: Int32
    /// The secondary box: encrypted chats and bot events.
    public var qts: Int32
    /// The sequence of containers (updates without pts).
    public var seq: Int32
    /// The server time of the last applied container or difference.
    public var date: Int32
    /// Channel id → that channel's pts.
    public var channels: [Int64: Int32]

    /// A state with the given counters; all zero is an account that has none yet.
    public init(pts: Int32 = 0, qts: Int32 = 0, seq: Int32 = 0, date: Int32 = 0, channels: [Int64: Int32] = [:]) {
        self.pts = pts
        self.qts = qts
        self.seq = seq
        self.date = date
        self.channels = channels
    }

    /// No counter is known: a fresh account (its first state comes from `updates.getState`).
    public var isEmpty: Bool { pts == 0 && qts == 0 && seq == 0 && date == 0 && channels.isEmpty }
}

/// A sequence of pts-ordered updates (UPDATE-RULES §2): the common box (private chats and basic groups), the
/// secondary box (qts: secret chats and bot events) and one box per channel.
public enum UpdateBox: Hashable, Sendable, Comparable, CustomStringConvertible {
    case common
    case secondary
    case channel(Int64)

    /// The counters, for logs and test failures.
    public var description: String {
        switch self {
        case .common: "common"
        case .secondary: "secondary"
        case let .channel(id): "channel \(id)"
        }
    }
}
