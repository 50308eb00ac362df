import Foundation
import Logging
import SyncTesting
import Testing
@testable import SyncServer

/// `PostgresGroupCommit` on a real server: writes that share a transaction stay each other's strangers.
@Suite(.timeLimit(.minutes(2)), .enabled(if: TestPostgres.url != nil))
struct PostgresGroupCommitTests {
    private struct Refusal: Error {}

    /// What each concurrent write of the batch test does.
    private enum Kind {
        /// Advances box 1 by one event.
        case advance
        /// Advances box 1 in memory, then throws: nothing it buffered may reach the tables.
        case advanceThenRefuse
        /// Writes a dialog row with a statement of its own, then throws: the batch must be rolled back and isolated.
        case writeThenRefuse
        /// Inserts a user whose id is taken: a unique violation that comes back on every run, confined to this write.
        case duplicateUser

        init(_ index: Int) {
            self = index == 50 ? .duplicateUser : [.advance, .advance, .advanceThenRefuse, .writeThenRefuse][index % 4]
        }
    }

    @Test func concurrentWritesShareTransactionsAndFailedOnesLeaveNoTrace() async throws {
        let url = try await TestPostgres.createDatabase()
        let storage = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        try await storage.write { tx in try tx.insert(UserRecord(id: 1, accessHash: 1, phone: "1", firstName: "A", homeDC: 2)) }
        let outcomes = await withTaskGroup(of: (Int, Result<Int32, any Error>).self) { group in
            for index in 0..<400 {
                group.addTask {
                    // Some name their box up front, to be locked for their whole batch.
                    let boxes: [Int64] = index % 8 == 0 ? [1] : []
                    let result = await Result(catching: {
                        try await storage.write(locking: boxes) { tx in try Self.run(Kind(index), index: index, in: tx) }
                    })
                    return (index, result)
                }
            }
            return await group.reduce(into: [Int: Result<Int32, any Error>]()) { $0[$1.0] = $1.1 }
        }
        var assigned: [Int32] = []
        for (index, outcome) in outcomes {
            switch (Kind(index), outcome) {
            case let (.advance, .success(pts)): assigned.append(pts)
            case (.advanceThenRefuse, .failure(is Refusal)), (.writeThenRefuse, .failure(is Refusal)): break
            case let (.duplicateUser, .failure(error)): #expect("\(error)".contains("23505"))
            case let (kind, outcome): Issue.record("write \(index) (\(kind)) ended as \(outcome)")
            }
        }
        let advances = Int32(assigned.count)
        #expect(advances == 200 && assigned.sorted() == Array(1...advances))
        let (state, events, dialogs, users) = try await storage.read { tx in
            (try tx.state(user: 1), try tx.events(user: 1, afterPts: 0, limit: 1_000), try tx.dialogCount(owner: 99), try tx.maxUserID())
        }
        #expect(state.pts == advances && events.map(\.pts) == Array(1...advances) && dialogs == 0 && users == 1)
        await storage.close()
        await TestPostgres.dropDatabase(url)
    }

    private static func run(_ kind: Kind, index: Int, in tx: any StorageWriter) throws -> Int32 {
        switch kind {
        case .advance, .advanceThenRefuse:
            try tx.lockBoxes(users: [1])
            var state = try tx.state(user: 1)
            state.pts += 1
            try tx.append(StoredEvent(pts: state.pts, ptsCount: 1, date: 1, update: [UInt8(index % 256)]), user: 1)
            try tx.setState(state, user: 1)
            if kind == .advanceThenRefuse { throw Refusal() }
            return state.pts
        case .writeThenRefuse:
            try tx.upsert(DialogRecord(owner: 99, peer: .user(Int64(index))))
            throw Refusal()
        case .duplicateUser:
            try tx.insert(UserRecord(id: 1, accessHash: 2, phone: "2", firstName: "B", homeDC: 2))
            return 0
        }
    }

    /// A retried `random_id` reaching a process that never saw the first send (a restart stands for the other
    /// process): the batch skips the lookup, the unique index catches the repeat, and the run that looks it up
    /// answers with the first send.
    @Test func aRetryUnknownToThisProcessIsFoundInTheLog() async throws {
        let url = try await TestPostgres.createDatabase()
        let first = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        let original = SentRecord(messageID: 5, pts: 9, date: 100)
        try await first.write { tx in try tx.recordSent(original, user: 1, randomID: 77) }
        await first.close()
        let second = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        let answers = try await second.write { tx -> [SentRecord?] in
            let earlier = try tx.sent(user: 1, randomID: 77)
            if earlier == nil { try tx.recordSent(SentRecord(messageID: 6, pts: 10, date: 200), user: 1, randomID: 77) }
            try tx.recordSent(SentRecord(messageID: 7, pts: 11, date: 200), user: 1, randomID: 78)
            return [earlier, try tx.sent(user: 1, randomID: 78)]
        }
        #expect(answers == [original, SentRecord(messageID: 7, pts: 11, date: 200)])
        #expect(try await second.read { try $0.sent(user: 1, randomID: 77) } == original)
        await second.close()
        await TestPostgres.dropDatabase(url)
    }
}

private extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
