import GRDB

extension Transaction {
    /// Marks `range` of history as unknown in `key` (and, for "everywhere", in every seed tag space).
    public func addHole(_ key: HoleKey, _ range: ClosedRange<Int32>) throws {
        try modifyHoles(key, range, ChangeRecord.HoleOperation.insert) { $0.insert($1) }
    }

    /// Marks `range` as known (filled): what a history fetch does after storing the messages it got.
    public func removeHole(_ key: HoleKey, _ range: ClosedRange<Int32>) throws {
        try modifyHoles(key, range, ChangeRecord.HoleOperation.remove) { $0.remove($1) }
    }

    /// The holes of one (peer, namespace, space), in ascending order.
    public func holes(_ key: HoleKey) throws -> [ClosedRange<Int32>] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT lower, upper FROM holes WHERE peer = ? AND namespace = ? AND space = ? ORDER BY upper"),
                         arguments: [key.peer.rawValue, key.namespace, key.space.rawValue]).map { ($0["lower"] as Int32)...($0["upper"] as Int32) }
    }

    /// The hole containing `id`, if any (holes are keyed by their upper bound: the first upper ≥ id decides).
    public func hole(containing id: Int32, in key: HoleKey) throws -> ClosedRange<Int32>? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT lower, upper FROM holes WHERE peer = ? AND namespace = ? AND space = ? AND upper >= ? ORDER BY upper LIMIT 1
            """), arguments: [key.peer.rawValue, key.namespace, key.space.rawValue, id])
        else { return nil }
        let range = (row["lower"] as Int32)...(row["upper"] as Int32)
        return range.contains(id) ? range : nil
    }

    private func modifyHoles(_ key: HoleKey, _ range: ClosedRange<Int32>,
                             _ operation: (ClosedRange<Int32>) -> ChangeRecord.HoleOperation,
                             _ change: (inout HoleSet, ClosedRange<Int32>) -> Void) throws {
        let all = SeedConfiguration.allIDs
        guard range.overlaps(all) else { return }
        let clipped = max(range.lowerBound, all.lowerBound)...min(range.upperBound, all.upperBound)
        try initializePeerIfNeeded(key.peer)
        var keys = [key]
        if key.space == .everywhere { keys += seed.holeTags.map { HoleKey(peer: key.peer, namespace: key.namespace, space: .tag($0)) } }
        for key in keys {
            if try modifyHoleRows(key, clipped, change) { changes.holes[key, default: []].append(operation(clipped)) }
        }
    }

    /// Loads the stored ranges that touch `range` (or are adjacent to it), applies `change`, writes the difference.
    /// Returns whether anything changed.
    private func modifyHoleRows(_ key: HoleKey, _ range: ClosedRange<Int32>,
                                _ change: (inout HoleSet, ClosedRange<Int32>) -> Void) throws -> Bool {
        let arguments: StatementArguments = [key.peer.rawValue, key.namespace, key.space.rawValue,
                                             Int64(range.lowerBound) - 1, Int64(range.upperBound) + 1]
        let touched = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT lower, upper FROM holes WHERE peer = ? AND namespace = ? AND space = ? AND upper >= ? AND lower <= ?
            """), arguments: arguments).map { ($0["lower"] as Int32)...($0["upper"] as Int32) }
        var set = HoleSet(touched)
        change(&set, range)
        let before = Set(touched)
        let after = Set(set.ranges)
        guard before != after else { return false }
        for old in before.subtracting(after) {
            try db.cachedStatement(sql: "DELETE FROM holes WHERE peer = ? AND namespace = ? AND space = ? AND upper = ?")
                .execute(arguments: [key.peer.rawValue, key.namespace, key.space.rawValue, old.upperBound])
        }
        for new in after.subtracting(before) {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO holes (peer, namespace, space, upper, lower) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [key.peer.rawValue, key.namespace, key.space.rawValue, new.upperBound, new.lowerBound])
        }
        return true
    }
}
