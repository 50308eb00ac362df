/// Disjoint, non-adjacent closed id ranges, sorted: the holes of one (peer, namespace, space).
/// Inserting merges overlapping and adjacent ranges; removing splits them.
public struct HoleSet: Hashable, Sendable {
    /// The holes, sorted and never overlapping or touching.
    public private(set) var ranges: [ClosedRange<Int32>] = []

    /// A set of the given ranges (merged where they touch).
    public init(_ ranges: [ClosedRange<Int32>] = []) {
        for range in ranges { insert(range) }
    }

    /// Adds `range`, merging it with the holes it touches.
    public mutating func insert(_ range: ClosedRange<Int32>) {
        var lower = range.lowerBound
        var upper = range.upperBound
        var kept: [ClosedRange<Int32>] = []
        for existing in ranges {
            // Overlapping or adjacent (…, n] [n + 1, …) ranges merge into one.
            if Int64(existing.upperBound) + 1 < Int64(lower) || Int64(existing.lowerBound) > Int64(upper) + 1 {
                kept.append(existing)
            } else {
                lower = min(lower, existing.lowerBound)
                upper = max(upper, existing.upperBound)
            }
        }
        kept.append(lower...upper)
        ranges = kept.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Removes `range` (messages now stored), splitting a hole it falls inside.
    public mutating func remove(_ range: ClosedRange<Int32>) {
        var result: [ClosedRange<Int32>] = []
        for existing in ranges {
            guard existing.overlaps(range) else {
                result.append(existing)
                continue
            }
            if existing.lowerBound < range.lowerBound { result.append(existing.lowerBound...(range.lowerBound - 1)) }
            if existing.upperBound > range.upperBound { result.append((range.upperBound + 1)...existing.upperBound) }
        }
        ranges = result
    }

    /// Whether `id` lies in a hole.
    public func contains(_ id: Int32) -> Bool {
        ranges.contains { $0.contains(id) }
    }

    /// Whether there are no holes.
    public var isEmpty: Bool { ranges.isEmpty }
}
