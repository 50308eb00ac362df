import Postbox

/// One `messages.getHistory` page for a hole, and what its answer proves about the hole (core.telegram.org/api/offsets).
/// Bounded to the hole with `min_id`/`max_id`, it starts next to what the view shows: `.older` downward from the
/// view's anchor (or the hole's top), `.newer` upward from the anchor (or the hole's bottom), `.around` a view's anchor
/// that lies inside the hole (a view opened at an unloaded message), half the page on each side
/// (`add_offset = -limit/2`).
public struct HoleFetch: Hashable, Sendable {
    /// Which way the page reads: down from an id, up from an id, or around an anchor.
    public enum Mode: Hashable, Sendable {
        case older(from: Int32)
        case newer(from: Int32)
        case around(Int32)
    }

    /// The chat, namespace and tag space of the hole.
    public let key: HoleKey
    /// The message ids the hole covers.
    public let hole: ClosedRange<Int32>
    /// Which way the page reads, and from where.
    public let mode: Mode
    /// Messages asked for (`messages.getHistory` takes at most 100).
    public let limit: Int32

    /// Telegram's page size for `messages.getHistory`.
    public static let pageSize: Int32 = 100

    /// The fetch a view's hole request asks for; `around` when both of the view's requests name this hole and its
    /// anchor is inside it.
    public init(_ request: HoleRequest, around: Bool = false) {
        key = request.key
        hole = request.hole
        limit = min(Self.pageSize, Int32(clamping: max(request.count, 20)))
        if around {
            mode = .around(request.anchor)
        } else if request.direction == .newer {
            mode = .newer(from: max(request.hole.lowerBound, request.anchor))
        } else {
            mode = .older(from: min(request.hole.upperBound, request.anchor))
        }
    }

    /// `offset_id`, `add_offset`, `max_id`, `min_id` of the request (`max_id`/`min_id` exclusive; 0: unbounded).
    public var parameters: (offsetID: Int32, addOffset: Int32, maxID: Int32, minID: Int32) {
        let maxID = hole.upperBound >= SeedConfiguration.allIDs.upperBound ? 0 : hole.upperBound + 1
        let minID = hole.lowerBound - 1
        switch mode {
        case let .older(start): return (start >= SeedConfiguration.allIDs.upperBound ? 0 : start + 1, 0, maxID, minID)
        case let .newer(start): return (start, -limit, maxID, minID)
        case let .around(anchor): return (anchor, -(limit / 2), maxID, minID)
        }
    }

    /// The part of the hole the answer's message ids (those inside the hole) prove known, or nil when none: a side
    /// that returned fewer than asked is known to the hole's edge, otherwise up to the farthest message received.
    public func filled(by ids: [Int32]) -> ClosedRange<Int32>? {
        let ids = ids.filter(hole.contains)
        let (bottom, top): (Int32, Int32)
        switch mode {
        case let .older(start):
            bottom = ids.count < Int(limit) ? hole.lowerBound : (ids.min() ?? start)
            top = start
        case let .newer(start):
            bottom = start
            top = ids.count < Int(limit) ? hole.upperBound : (ids.max() ?? start)
        case let .around(anchor):
            let (newer, older) = (ids.filter { $0 >= anchor }, ids.filter { $0 < anchor })
            top = newer.count < Int(limit / 2) ? hole.upperBound : (newer.max() ?? anchor)
            bottom = older.count < Int(limit - limit / 2) ? hole.lowerBound : (older.min() ?? anchor)
        }
        return bottom <= top ? bottom...top : nil
    }
}
