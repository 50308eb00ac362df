import Synchronization

/// The open views, indexed by the keys they depend on. Registration, replay and removal all happen on the store's
/// writer (or under the lock for removal), so no commit can slip between a view's initial load and its registration.
final class ViewTracker: Sendable {
    /// A registered view with the code that reloads it and delivers the new snapshot.
    struct Entry: Sendable {
        let keys: Set<ViewKey>
        /// Peers whose hole changes make an update a `.fillHole` for this view.
        let holePeers: Set<PeerID>
        /// Reloads the view, delivers its snapshot if it changed, and returns the holes it now asks for.
        let reload: @Sendable (Transaction, ViewUpdateType) throws -> Set<HoleRequest>

        init(keys: Set<ViewKey>, reload: @escaping @Sendable (Transaction, ViewUpdateType) throws -> Set<HoleRequest>) {
            self.keys = keys
            holePeers = Set(keys.compactMap { key -> PeerID? in
                if case let .holes(peer) = key { return peer } else { return nil }
            })
            self.reload = reload
        }
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var byKey: [ViewKey: Set<Int>] = [:]
        var nextID = 0
        var holeRequests: [Int: Set<HoleRequest>] = [:]
        var holeSubscribers: [Int: AsyncStream<Set<HoleRequest>>.Continuation] = [:]
        var publishedHoles: Set<HoleRequest> = []
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.entries.count } }

    /// Peers some open view shows the history of.
    var viewedHistoryPeers: Set<PeerID> {
        state.withLock { state in
            Set(state.byKey.keys.compactMap { key -> PeerID? in
                if case let .history(peer) = key { return peer } else { return nil }
            })
        }
    }

    func add(_ entry: Entry, holeRequests: Set<HoleRequest>) -> Int {
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = entry
            for key in entry.keys { state.byKey[key, default: []].insert(id) }
            if !holeRequests.isEmpty { state.holeRequests[id] = holeRequests }
            return id
        }
        publishHoles()
        return id
    }

    func remove(_ id: Int) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return }
            for key in entry.keys {
                state.byKey[key]?.remove(id)
                if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
            }
            state.holeRequests[id] = nil
        }
        publishHoles()
    }

    /// The union of the holes open views ask for, as last published.
    var publishedHoleRequests: Set<HoleRequest> { state.withLock { $0.publishedHoles } }

    /// Subscribes to the union of the holes open views ask for; yields it now and after every change.
    func subscribeToHoles() -> AsyncStream<Set<HoleRequest>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Set<HoleRequest>.self)
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.holeSubscribers[id] = continuation
            continuation.yield(state.publishedHoles)
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.holeSubscribers[id] = nil } }
        return stream
    }

    private func publishHoles() {
        state.withLock { state in
            let union = state.holeRequests.values.reduce(into: Set<HoleRequest>()) { $0.formUnion($1) }
            guard union != state.publishedHoles else { return }
            state.publishedHoles = union
            for subscriber in state.holeSubscribers.values { subscriber.yield(union) }
        }
    }

    private func record(_ requests: Set<HoleRequest>, for id: Int) {
        state.withLock { $0.holeRequests[id] = requests.isEmpty ? nil : requests }
    }

    /// Reloads exactly the views whose keys `changes` touched.
    func replay(_ changes: ChangeRecord, transaction: Transaction) {
        let (keys, filled) = changes.touchedKeys
        let affected: [(Int, Entry)] = state.withLock { state in
            var ids = Set<Int>()
            for key in keys { if let found = state.byKey[key] { ids.formUnion(found) } }
            return ids.sorted().compactMap { id in state.entries[id].map { (id, $0) } }
        }
        for (id, entry) in affected {
            let type: ViewUpdateType = entry.holePeers.isDisjoint(with: filled) ? .generic : .fillHole
            if let requests = try? entry.reload(transaction, type) { record(requests, for: id) }
        }
        if !affected.isEmpty { publishHoles() }
    }

    /// Reloads every view (another process committed).
    func reloadAll(transaction: Transaction) {
        let all = state.withLock { Array($0.entries) }
        for (id, entry) in all {
            if let requests = try? entry.reload(transaction, .updateVisible) { record(requests, for: id) }
        }
        publishHoles()
    }
}
