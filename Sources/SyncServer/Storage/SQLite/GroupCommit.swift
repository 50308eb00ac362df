import GRDB

/// Group commit for the SQLite backend: write transactions that arrive while one is committing are run together
/// in the next transaction, so one `fsync` (synchronous = FULL) serves many sends instead of one each. Every write
/// still runs alone and in order against what the earlier ones wrote, and one that throws leaves no trace: a batch
/// first runs its writes back to back; if one throws after it changed rows, that transaction is rolled back and the
/// batch runs again with each write in its own savepoint (a write that throws before changing anything, the usual
/// refusal, needs neither). Each caller resumes only after the shared COMMIT (with the commit's error if it fails),
/// so nothing is acknowledged before it is durable. A write may run twice (the result of the committed run is the
/// one returned), so it must not have effects outside the transaction beyond metrics.
final class GroupCommit: Sendable {
    /// One queued write: runs inside the batch's transaction, then learns how the COMMIT went.
    private struct Job: Sendable {
        /// Runs the write, in its own savepoint when `isolated`; returns false when it threw after changing rows
        /// outside a savepoint (the batch must then be rolled back and run isolated).
        let run: @Sendable (_ batch: WriteBatch, _ isolated: Bool) -> Bool
        let finish: @Sendable ((any Error)?) -> Void
    }

    private let pool: DatabasePool
    private let users: UserCache
    private let recentSends: RecentSends
    private let queue = CommitQueue<Job>(maximumBatch: 512)

    init(pool: DatabasePool, users: UserCache, recentSends: RecentSends) {
        self.pool = pool
        self.users = users
        self.recentSends = recentSends
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T {
        try await queue.write({ outcome, finish in
            Job(
                run: { [users] batch, isolated in
                    let db = batch.db
                    let changesBefore = db.totalChangesCount
                    let mark = batch.mark
                    do {
                        if isolated {
                            try db.inSavepoint {
                                outcome.set(.success(try body(SQLiteTransaction(db: db, users: users, batch: batch))))
                                return .commit
                            }
                        } else {
                            outcome.set(.success(try body(SQLiteTransaction(db: db, users: users, batch: batch))))
                        }
                        return true
                    } catch {
                        outcome.set(.failure(error))
                        batch.undo(to: mark)
                        return isolated || db.totalChangesCount == changesBefore
                    }
                },
                finish: finish)
        }, commit: { await self.commitBatch($0) })
    }

    /// Refuses new writes; returns when the accepted ones have committed (or failed).
    func close() async {
        await queue.close()
    }

    /// Commits one batch; every job learns the outcome.
    private func commitBatch(_ jobs: [Job]) async {
        do {
            let committed: Committed
            do {
                committed = try await commit(jobs, isolated: false)
            } catch is PartialWrite {
                committed = try await commit(jobs, isolated: true)
            }
            users.forget(committed.forgotten)
            users.remember(committed.users)
            recentSends.commit(committed.sendWindows)
            for job in jobs { job.finish(nil) }
        } catch {
            for job in jobs { job.finish(error) }
        }
    }

    /// Runs `jobs` in one transaction and commits it. Not isolated, a job that throws after changing rows aborts the
    /// transaction with `PartialWrite`; isolated, each job has its own savepoint and never does.
    private func commit(_ jobs: [Job], isolated: Bool) async throws -> Committed {
        try await pool.write { [recentSends] db in
            let batch = WriteBatch(db: db, recentSends: recentSends)
            for job in jobs where !job.run(batch, isolated) { throw PartialWrite() }
            return try Committed(batch)
        }
    }
}

/// A write of the batch threw after changing rows outside a savepoint: the batch's transaction is rolled back.
private struct PartialWrite: Error {}

/// What a batch hands to the shared caches once its transaction committed.
private struct Committed: Sendable {
    let users: [UserRecord]
    let forgotten: [Int64]
    let sendWindows: [Int64: SendWindow]

    /// Ends the batch's writes (`WriteBatch.finish`) and collects what the caches learn.
    init(_ batch: WriteBatch) throws {
        try batch.finish()
        users = batch.usersToCache
        forgotten = batch.usersToForget
        sendWindows = batch.sendWindowsToCommit
    }
}
