import Synchronization

/// One stream of events with one consumer at a time that can be replaced: an `AsyncStream` ends for good when its
/// consuming task is cancelled, so an account that stops syncing (a logout) and starts again (a new login) on the
/// same `ConnectionManager` needs a fresh stream, not the dead one. Each `subscribe()` returns a new stream and ends
/// the previous one; events with no consumer wait (the oldest dropped past `pendingLimit`) for the next.
final class SubscriberRelay<Element: Sendable>: Sendable {
    private struct State {
        var current: (id: Int, continuation: AsyncStream<Element>.Continuation)?
        var pending: [Element] = []
        var lastID = 0
        var finished = false
    }

    private let state = Mutex(State())
    private let pendingLimit: Int

    init(pendingLimit: Int = 4_096) {
        self.pendingLimit = pendingLimit
    }

    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let (previous, finished) = state.withLock { state -> (AsyncStream<Element>.Continuation?, Bool) in
            let previous = state.current?.continuation
            guard !state.finished else { return (previous, true) }
            state.lastID += 1
            let id = state.lastID
            state.current = (id, continuation)
            for element in state.pending { continuation.yield(element) }
            state.pending.removeAll()
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { state in if state.current?.id == id { state.current = nil } }
            }
            return (previous, false)
        }
        previous?.finish()
        if finished { continuation.finish() }
        return stream
    }

    func yield(_ element: Element) {
        let target = state.withLock { state -> AsyncStream<Element>.Continuation? in
            guard !state.finished else { return nil }
            if let current = state.current { return current.continuation }
            state.pending.append(element)
            if state.pending.count > pendingLimit { state.pending.removeFirst(state.pending.count - pendingLimit) }
            return nil
        }
        target?.yield(element)
    }

    func finish() {
        let current = state.withLock { state -> AsyncStream<Element>.Continuation? in
            state.finished = true
            state.pending.removeAll()
            defer { state.current = nil }
            return state.current?.continuation
        }
        current?.finish()
    }
}
