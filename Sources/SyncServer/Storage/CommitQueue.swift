import Synchronization

/// The queue in front of a group-committing writer (SQLite's `GroupCommit`, PostgreSQL's `PostgresGroupCommit`):
/// writes that arrive while a batch commits wait here and go together into the next one. The first write that finds
/// nobody committing starts the drain; the drain takes up to `maximumBatch` jobs at a time until the queue is empty.
final class CommitQueue<Job: Sendable>: Sendable {
    private struct State {
        var pending: [Job] = []
        var draining = false
        var closed = false
        /// Who waits in `close` for the last batch to end.
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Writes per batch at most, so one batch's latency stays bounded under a flood.
    let maximumBatch: Int

    init(maximumBatch: Int) {
        self.maximumBatch = maximumBatch
    }

    /// Queues `job` and, when no drain is running, starts one that hands batches to `commit` in arrival order.
    /// Returns false, without queueing, once the queue is closed.
    func submit(_ job: Job, commit: @escaping @Sendable ([Job]) async -> Void) -> Bool {
        let startsDrain = state.withLock { state -> Bool? in
            guard !state.closed else { return nil }
            state.pending.append(job)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        guard let startsDrain else { return false }
        if startsDrain { Task { await self.drain(commit) } }
        return true
    }

    /// Refuses new jobs; returns when the accepted ones have been committed (or failed).
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                state.closed = true
                if state.draining { state.drained.append(continuation) }
                return !state.draining
            }
            if idle { continuation.resume() }
        }
    }

    private func drain(_ commit: @Sendable ([Job]) async -> Void) async {
        while true {
            let (jobs, drained) = state.withLock { state -> ([Job], [CheckedContinuation<Void, Never>]) in
                let batch = Array(state.pending.prefix(maximumBatch))
                state.pending.removeFirst(batch.count)
                guard batch.isEmpty else { return (batch, []) }
                state.draining = false
                defer { state.drained.removeAll() }
                return ([], state.drained)
            }
            guard !jobs.isEmpty else {
                for waiter in drained { waiter.resume() }
                return
            }
            await commit(jobs)
        }
    }
}
