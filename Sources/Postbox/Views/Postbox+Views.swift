import GRDB
import Synchronization

/// One snapshot of a view and why it was produced.
public struct ViewUpdate<Snapshot: Sendable>: Sendable {
    /// The view's new state.
    public let snapshot: Snapshot
    /// Why it changed: the first load, a commit, or a hole filled.
    public let type: ViewUpdateType
}

extension Postbox {
    /// Opens a live view: the stream yields the initial snapshot, then one snapshot per commit that changed it.
    /// The initial load and the registration happen together on the writer, so no commit slips between them.
    /// Ending the iteration (or cancelling its task) unregisters the view.
    public func view<View: PostboxView>(_ view: View) -> AsyncThrowingStream<ViewUpdate<View.Snapshot>, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ViewUpdate<View.Snapshot>.self)
        let registration = Mutex<(id: Int?, ended: Bool)>((nil, false))
        let tracker = self.tracker
        continuation.onTermination = { _ in
            let id = registration.withLock { state -> Int? in
                state.ended = true
                return state.id
            }
            if let id { tracker.remove(id) }
        }
        let seed = self.seed
        let database = self.database
        Task {
            do {
                try await database.writeWithoutTransaction { db in
                    let initial = try view.load(Transaction(db: db, seed: seed))
                    continuation.yield(ViewUpdate(snapshot: initial, type: .initial))
                    let last = Mutex(initial)
                    let entry = ViewTracker.Entry(keys: view.keys) { transaction, type in
                        let snapshot = try view.load(transaction)
                        let changed = last.withLock { previous -> Bool in
                            guard previous != snapshot else { return false }
                            previous = snapshot
                            return true
                        }
                        if changed { continuation.yield(ViewUpdate(snapshot: snapshot, type: type)) }
                        return view.holeRequests(in: snapshot)
                    }
                    let id = tracker.add(entry, holeRequests: view.holeRequests(in: initial))
                    let ended = registration.withLock { state -> Bool in
                        state.id = id
                        return state.ended
                    }
                    if ended { tracker.remove(id) }
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return stream
    }

    /// The union of the holes every open history view asks for (the singleton holes view): yields the current set at
    /// once and again whenever it changes. The hole filler subscribes to this.
    public func historyHoles() -> AsyncStream<Set<HoleRequest>> {
        tracker.subscribeToHoles()
    }

    /// The holes open history views ask for now (what `historyHoles()` last yielded): for a caller that steps the
    /// hole filler itself, as the deterministic simulation does, instead of following the stream.
    public var historyHoleRequests: Set<HoleRequest> { tracker.publishedHoleRequests }

    /// How many views are open (for tests and diagnostics).
    public var openViewCount: Int { tracker.count }
}
