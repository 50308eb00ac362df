import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Group commit for the PostgreSQL backend: writes that arrive while a batch commits run together in the next
/// transaction, against one `PostgresTransaction`; the rows of all its writes go out in one multi-row statement
/// (`PendingWrites`, `flush`) with the batch's announcement, and one COMMIT (one WAL flush) serves them all.
///
/// Box states come from this process's cache when it has them (`BoxStateCache`), checked by that statement; the
/// boxes it lacks, among those the writes named (`write(locking:)`), are locked first, together and in id order. A
/// batch that needs no other statement (the private sends of users this process serves) takes the fast path: its
/// writes run in memory on the draining task and its one statement runs alone, outside an explicit transaction,
/// awaited on the connection's event loop (`commitInMemory`). Any other batch runs on a thread of the pool, opening its
/// transaction at its first statement.
///
/// A batch first runs its writes back to back. A write that throws before changing the database is taken back in
/// memory and gets its error; one that throws after it did, or a statement that fails, rolls the batch back, and it
/// runs again with each write in a savepoint of its own, where any failure is that write's alone. A lost race with
/// another process (unique violation, serialization failure, deadlock, a cached state that changed) runs the batch
/// again, looking up retried sends in the log (`looksUpSends`); when it comes back, the batch is isolated and each
/// write retries its own savepoint, up to `PostgresServerStorage.retries` times, so one write that keeps failing does
/// not take the batch with it. Every caller resumes after the COMMIT, so nothing is acknowledged before it is durable;
/// a write may run more than once and the committed run's result is the one returned, as `ServerStorage` allows.
final class PostgresGroupCommit: Sendable {
    private struct Job: Sendable {
        /// The boxes the write said it will lock, taken for the whole batch first.
        let boxes: [Int64]
        /// Runs the write; returns what it threw (its result is kept for `finish`).
        let run: @Sendable (PostgresTransaction) -> (any Error)?
        /// This run of the write failed with this error (taken back; the batch goes on).
        let fail: @Sendable (any Error) -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    private let pool: PostgresSessionPool
    private let users: UserCache
    private let boxes: BoxStateCache
    /// This process's mark on its announcements (`CommitAnnouncement`).
    private let origin: Int64
    /// The drain and the fast path's connection share one event loop: a batch's statement completes where the drain
    /// waits for it, without a thread switch. Internal for tests.
    let eventLoop: any EventLoop
    private let queue: CommitQueue<Job>
    /// The fast path's own connection on `eventLoop` (batches commit one at a time).
    private let fastSession: LoopSession
    /// Batches committed by the fast path and by the usual one (what tests look at).
    let committedInMemory = Atomic<Int>(0)
    let committedOnThread = Atomic<Int>(0)

    init(pool: PostgresSessionPool, users: UserCache, boxes: BoxStateCache, origin: Int64, eventLoop: any EventLoop) {
        self.pool = pool
        self.users = users
        self.boxes = boxes
        self.origin = origin
        self.eventLoop = eventLoop
        queue = CommitQueue<Job>(maximumBatch: 512, eventLoop: eventLoop)
        fastSession = LoopSession(pool: pool, eventLoop: eventLoop)
    }

    func write<T: Sendable>(locking boxes: [Int64] = [], _ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T {
        try await queue.write({ outcome, finish in
            Job(
                boxes: boxes,
                run: { tx in
                    do {
                        outcome.set(.success(try body(tx)))
                        return nil
                    } catch {
                        return error
                    }
                },
                fail: { error in outcome.set(.failure(error)) },
                finish: finish)
        }, commit: { await self.commitBatch($0) })
    }

    /// Refuses new writes; returns when the accepted ones have committed (or failed).
    func close() async {
        await queue.close()
        await fastSession.close()
    }

    private func commitBatch(_ jobs: [Job]) async {
        do {
            switch try await commitInMemory(jobs) {
            case .committed:
                committedInMemory.add(1, ordering: .relaxed)
            case let .needsThread(lostRace):
                try await pool.run { session in try self.commit(jobs, on: session, lostRace: lostRace) }
                committedOnThread.add(1, ordering: .relaxed)
            }
            for job in jobs { job.finish(nil) }
        } catch {
            for job in jobs { job.finish(error) }
        }
    }

    private enum FastPath: Equatable {
        case committed
        /// The batch must run the usual way, on a thread of the pool; `lostRace`: after a lost race (look sends up).
        case needsThread(lostRace: Bool)
    }

    /// The batch's fast path: its writes run in memory, on the calling task, with the box states from the cache, and
    /// its rows go out as one statement awaited on the connection's event loop, so no thread of the pool is woken
    /// and none blocks. When a write wants a statement, a box is not cached, or the statement fails in a way the
    /// usual path handles (a lost race, a write's own failure), the batch runs again from the start the usual way.
    private func commitInMemory(_ jobs: [Job]) async throws -> FastPath {
        let tx = PostgresTransaction(session: nil, isWrite: true, users: users, boxes: boxes, looksUpSends: false)
        do {
            try tx.lockBoxesAhead(Set(jobs.flatMap(\.boxes)))
            for job in jobs { try runShared(job, in: tx) }
        } catch {
            return .needsThread(lostRace: false)
        }
        guard let statement = tx.pendingRows(announcing: CommitAnnouncement.payloads(tx.logged, origin: origin)) else { return .committed }
        let session = try await fastSession.session()
        let outcome: FastPath
        do {
            try await session.rows(statement)
            outcome = .committed
        } catch {
            // Whether a statement cut off with its connection committed is unknown: the writes fail (500).
            if session.connection.isClosed {
                boxes.forget(tx.memory.locked.keys)
                throw PostgresFailure.typed(error)
            }
            outcome = .needsThread(lostRace: PostgresFailure.isLostRace(error))
        }
        if outcome == .committed { boxes.remember(tx.memory.locked) } else { boxes.forget(tx.memory.locked.keys) }
        return outcome
    }

    /// A write of a shared run threw after changing the database: the run is rolled back and the batch isolated.
    private struct RunIsolated: Error {}

    /// Runs the batch in one transaction until it commits, is isolated, or fails for good. Box states come from the
    /// cache where it has them (`BoxStateCache`), except in an isolated run (a savepoint rolled back would release
    /// the lock that checked them); the states a committed batch leaves are cached, those of a failed one forgotten.
    private func commit(_ jobs: [Job], on session: PostgresSession, lostRace: Bool) throws {
        var isolated = false
        var races = lostRace ? 1 : 0
        while true {
            let tx = PostgresTransaction(session: session, isWrite: true, users: users, boxes: isolated ? nil : boxes,
                                         looksUpSends: races > 0)
            do {
                if isolated { try tx.begin() }
                try tx.lockBoxesAhead(Set(jobs.flatMap(\.boxes)))
                for job in jobs {
                    if isolated { try runIsolated(job, in: tx) } else { try runShared(job, in: tx) }
                }
                try tx.finish(announcing: CommitAnnouncement.payloads(tx.logged, origin: origin))
                boxes.remember(tx.memory.locked)
                return
            } catch {
                boxes.forget(tx.memory.locked.keys)
                let connectionLost = session.connection.isClosed
                if tx.began, !connectionLost { try? session.run("ROLLBACK") }
                if error is RunIsolated {
                    isolated = true
                } else if PostgresFailure.isLostRace(error), races < PostgresServerStorage.retries {
                    // Run again, looking retried sends up; a race that comes back is confined to its write.
                    races += 1
                    isolated = isolated || races > 1
                } else if !isolated, !connectionLost, error is PSQLError {
                    // A statement failed that a savepoint can confine to its write.
                    isolated = true
                } else {
                    throw PostgresFailure.typed(error)
                }
            }
        }
    }

    /// Runs one write among the others: one that threw is taken back in memory, unless it reached the database.
    private func runShared(_ job: Job, in tx: PostgresTransaction) throws {
        let (mark, changes) = (tx.memory.mark, tx.databaseChanges)
        let error = job.run(tx)
        if let failure = tx.databaseFailure { throw failure }
        guard let error else { return }
        guard tx.databaseChanges == changes else { throw RunIsolated() }
        tx.memory.undo(to: mark)
        job.fail(error)
    }

    /// Runs one write in a savepoint of its own, its rows written inside it: whatever fails is rolled back to it and
    /// is that write's error. A lost race runs the write again there (the batch's other writes keep their work);
    /// a lost connection ends the batch's run.
    private func runIsolated(_ job: Job, in tx: PostgresTransaction) throws {
        let session = try tx.session
        try tx.flush()
        try session.run("SAVEPOINT write")
        let mark = tx.memory.mark
        var races = 0
        while true {
            var error = job.run(tx)
            if error == nil, tx.databaseFailure == nil {
                do { try tx.flush() } catch let failure { error = failure }
            }
            let failure = tx.databaseFailure
            guard let error = failure.map(PostgresFailure.typed) ?? error else { return try session.run("RELEASE SAVEPOINT write") }
            if let failure, session.connection.isClosed { throw failure }
            try session.run("ROLLBACK TO SAVEPOINT write")
            tx.databaseFailure = nil
            tx.memory.undo(to: mark)
            if let failure, PostgresFailure.isLostRace(failure), races < PostgresServerStorage.retries {
                races += 1
                tx.looksUpSends = true
                continue
            }
            job.fail(error)
            return try session.run("RELEASE SAVEPOINT write")
        }
    }
}
