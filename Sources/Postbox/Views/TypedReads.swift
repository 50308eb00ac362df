/// One message by id (nil when it is not stored).
public final class MessageView: PostboxView {
    /// The message.
    public let id: MessageID
    /// A view of the message `id`.
    public init(id: MessageID) { self.id = id }
    public var keys: Set<ViewKey> { [.history(id.peer)] }
    public func load(_ transaction: Transaction) throws -> Message? { try transaction.message(id) }
}

/// The same kind of view over many ids, as one snapshot keyed by id (e.g. the peers of a chat list page).
public final class MapView<ID: Hashable & Sendable, Element: PostboxView>: PostboxView {
    /// The views by id.
    public let views: [ID: Element]

    /// One view per id, made by `make`.
    public init(_ ids: [ID], _ make: (ID) -> Element) {
        var views: [ID: Element] = [:]
        for id in ids { views[id] = make(id) }
        self.views = views
    }

    public var keys: Set<ViewKey> { views.values.reduce(into: []) { $0.formUnion($1.keys) } }

    public func load(_ transaction: Transaction) throws -> [ID: Element.Snapshot] {
        try views.mapValues { try $0.load(transaction) }
    }

    /// Every part's hole requests (a map of history views asks for the holes of each).
    public func holeRequests(in snapshot: [ID: Element.Snapshot]) -> Set<HoleRequest> {
        views.reduce(into: []) { requests, entry in
            if let part = snapshot[entry.key] { requests.formUnion(entry.value.holeRequests(in: part)) }
        }
    }
}

extension Postbox {
    /// A view's current snapshot, read once.
    public func get<View: PostboxView>(_ view: View) async throws -> View.Snapshot {
        try await read { try view.load($0) }
    }

    /// Snapshots of a view: the current one, then one per commit that changed it.
    public func subscribe<View: PostboxView>(_ view: View) -> AsyncThrowingMapSequence<AsyncThrowingStream<ViewUpdate<View.Snapshot>, any Error>, View.Snapshot> {
        self.view(view).map(\.snapshot)
    }

    /// Several views read in one transaction: one consistent set of snapshots.
    public func get<A: PostboxView, B: PostboxView>(_ a: A, _ b: B) async throws -> (A.Snapshot, B.Snapshot) {
        let both = try await get(CombinedView(a, b))
        return (both.first, both.second)
    }

    /// Three views read in one transaction.
    public func get<A: PostboxView, B: PostboxView, C: PostboxView>(
        _ a: A, _ b: B, _ c: C
    ) async throws -> (A.Snapshot, B.Snapshot, C.Snapshot) {
        let all = try await get(CombinedView(CombinedView(a, b), c))
        return (all.first.first, all.first.second, all.second)
    }

    /// Four views read in one transaction.
    public func get<A: PostboxView, B: PostboxView, C: PostboxView, D: PostboxView>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) async throws -> (A.Snapshot, B.Snapshot, C.Snapshot, D.Snapshot) {
        let all = try await get(CombinedView(CombinedView(a, b), CombinedView(c, d)))
        return (all.first.first, all.first.second, all.second.first, all.second.second)
    }

    /// Two views as one stream: each element is a consistent pair after a commit that changed either.
    public func subscribe<A: PostboxView, B: PostboxView>(
        _ a: A, _ b: B
    ) -> AsyncThrowingMapSequence<AsyncThrowingStream<ViewUpdate<CombinedView<A, B>.Snapshot>, any Error>, (A.Snapshot, B.Snapshot)> {
        view(CombinedView(a, b)).map { ($0.snapshot.first, $0.snapshot.second) }
    }

    /// Three views as one live stream (their snapshots always from the same commit).
    public func subscribe<A: PostboxView, B: PostboxView, C: PostboxView>(
        _ a: A, _ b: B, _ c: C
    ) -> AsyncThrowingMapSequence<AsyncThrowingStream<ViewUpdate<CombinedView<CombinedView<A, B>, C>.Snapshot>, any Error>,
                                  (A.Snapshot, B.Snapshot, C.Snapshot)> {
        view(CombinedView(CombinedView(a, b), c)).map { ($0.snapshot.first.first, $0.snapshot.first.second, $0.snapshot.second) }
    }

    /// Four views as one live stream (their snapshots always from the same commit).
    public func subscribe<A: PostboxView, B: PostboxView, C: PostboxView, D: PostboxView>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) -> AsyncThrowingMapSequence<AsyncThrowingStream<ViewUpdate<CombinedView<CombinedView<A, B>, CombinedView<C, D>>.Snapshot>, any Error>,
                                  (A.Snapshot, B.Snapshot, C.Snapshot, D.Snapshot)> {
        view(CombinedView(CombinedView(a, b), CombinedView(c, d))).map {
            ($0.snapshot.first.first, $0.snapshot.first.second, $0.snapshot.second.first, $0.snapshot.second.second)
        }
    }
}
