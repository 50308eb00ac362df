import MTProtoNIO
import NIOCore
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
    /// Where the drain runs, if it should stay on one event loop (nil: Swift concurrency's pool).
    private let eventLoop: (any EventLoop)?

    init(maximumBatch: Int, eventLoop: (any EventLoop)? = nil) {
        self.maximumBatch = maximumBatch
        self.eventLoop = eventLoop
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
        guard startsDrain else { return true }
        if let eventLoop { eventLoop.startTask { await self.drain(commit) } } else { Task { await self.drain(commit) } }
        return true
    }

    /// Queues the job `make` builds and waits for its batch: `make` gets where the job keeps its result and the
    /// `finish` to call once the batch's COMMIT ended (with its error, if it failed).
    func write<T: Sendable>(_ make: (_ outcome: WriteOutcome<T>, _ finish: @escaping @Sendable ((any Error)?) -> Void) -> Job,
                            commit: @escaping @Sendable ([Job]) async -> Void) async throws -> T {
        let outcome = WriteOutcome<T>()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = make(outcome) { commitError in
                if let commitError { return continuation.resume(throwing: commitError) }
                // Every job ran in the committed batch, so the outcome is set.
                continuation.resume(with: outcome.result ?? .failure(CancellationError()))
            }
            if !submit(job, commit: commit) { continuation.resume(throwing: ServerStorageError.closed) }
        }
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

/// A queued write's result, set by each run of the write (the run in the committed batch sets it last).
final class WriteOutcome<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, any Error>?>(nil)

    var result: Result<T, any Error>? { value.withLock { $0 } }

    func set(_ result: Result<T, any Error>) {
        value.withLock { $0 = result }
    }
}
