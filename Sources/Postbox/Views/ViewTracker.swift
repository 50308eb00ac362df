import Synchronization

/// The open views, indexed by the keys they depend on. Registration, replay and removal all happen on the store's
/// writer (or under the lock for removal), so no commit can slip between a view's initial load and its registration.
final class ViewTracker: Sendable {
    /// A registered view with the code that reloads it and delivers the new snapshot.
    struct Entry: Sendable {
        let keys: Set<ViewKey>
        let holePeers: Set<PeerID>
        let reload: @Sendable (Transaction, ViewUpdateType) throws -> Void
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var byKey: [ViewKey: Set<Int>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.entries.count } }

    func add(_ entry: Entry) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = entry
            for key in entry.keys { state.byKey[key, default: []].insert(id) }
            return id
        }
    }

    func remove(_ id: Int) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return }
            for key in entry.keys {
                state.byKey[key]?.remove(id)
                if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
            }
        }
    }

    /// Reloads exactly the views whose keys `changes` touched.
    func replay(_ changes: ChangeRecord, transaction: Transaction) {
        let (keys, filled) = changes.touchedKeys
        let affected: [Entry] = state.withLock { state in
            var ids = Set<Int>()
            for key in keys { if let found = state.byKey[key] { ids.formUnion(found) } }
            return ids.sorted().compactMap { state.entries[$0] }
        }
        for entry in affected {
            let type: ViewUpdateType = entry.holePeers.isDisjoint(with: filled) ? .generic : .fillHole
            try? entry.reload(transaction, type)
        }
    }

    /// Reloads every view (another process committed).
    func reloadAll(transaction: Transaction) {
        let all = state.withLock { Array($0.entries.values) }
        for entry in all { try? entry.reload(transaction, .updateVisible) }
    }
}
