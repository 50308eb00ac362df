import Foundation
import Logging
import Synchronization
import SyncTesting
import Testing
@testable import SyncServer

/// Box states a process took from its cache (`BoxStateCache`) are checked by the statement that writes on them:
/// two storage instances on one database stand for two server processes.
@Suite(.timeLimit(.minutes(2)), .enabled(if: TestPostgres.url != nil))
struct PostgresBoxStateCacheTests {
    /// A box whose row changed without an event (so without an announcement): the stale cached state fails the check,
    /// and the write runs again on the row as it is, keeping the other process's change.
    @Test func aBoxChangedBehindTheCacheIsReadAgain() async throws {
        let url = try await TestPostgres.createDatabase()
        let first = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        let second = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        #expect(try await first.write { tx in try Self.advance([1], in: tx) } == 1)
        try await second.write { tx in
            try tx.lockBoxes(users: [1])
            var state = try tx.state(user: 1)
            state.seq = 7
            try tx.setState(state, user: 1)
        }
        #expect(first.boxes.state(of: 1)?.seq == 0, "the first instance still believes its own commit")
        #expect(try await first.write { tx in try Self.advance([1], in: tx) } == 2)
        let state = try await first.read { try $0.state(user: 1) }
        #expect(state.pts == 2 && state.seq == 7)
        #expect(first.boxes.state(of: 1) == state)
        await first.close()
        await second.close()
        await TestPostgres.dropDatabase(url)
    }

    /// Once a box is cached, a batch of sends on it needs no statement before its rows: it commits on the fast path
    /// (one statement awaited on the event loop, no thread of the pool).
    @Test func writesOnCachedBoxesTakeTheFastPath() async throws {
        let url = try await TestPostgres.createDatabase()
        let storage = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        for expected in Int32(1)...11 {
            #expect(try await storage.write(locking: [1, 2]) { tx in try Self.advance([1, 2], in: tx) } == expected)
        }
        #expect(storage.commits.committedOnThread.load(ordering: .relaxed) == 1, "the first write read the rows")
        #expect(storage.commits.committedInMemory.load(ordering: .relaxed) == 10)
        let events = try await storage.read { tx in try tx.events(user: 2, afterPts: 0, limit: 100) }
        #expect(events.map(\.pts) == Array(1...11))
        // Closing closes every connection, the fast path's own included.
        #expect(try await TestPostgres.connectionCount(to: url) > 0)
        await storage.close()
        let clock = ContinuousClock(), deadline = clock.now + .seconds(5)
        var open = try await TestPostgres.connectionCount(to: url)
        while open > 0, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            open = try await TestPostgres.connectionCount(to: url)
        }
        #expect(open == 0, "connections left open after close")
        await TestPostgres.dropDatabase(url)
    }

    /// Writes from both instances at once on the same two boxes (a chat across processes): some assumptions fail,
    /// some batches wait for the other's locks, and every pts is taken exactly once.
    @Test func twoInstancesAdvancingTheSameBoxesStayExact() async throws {
        let url = try await TestPostgres.createDatabase()
        let first = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        let second = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        let perInstance = 150
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<(2 * perInstance) {
                let storage = index % 2 == 0 ? first : second
                group.addTask { _ = try await storage.write(locking: [1, 2]) { tx in try Self.advance([1, 2], in: tx) } }
            }
            try await group.waitForAll()
        }
        let expected = Array(1...Int32(2 * perInstance))
        for box: Int64 in [1, 2] {
            let (state, events) = try await first.read { tx in (try tx.state(user: box), try tx.events(user: box, afterPts: 0, limit: 1_000)) }
            #expect(state.pts == expected.last && events.map(\.pts) == expected)
        }
        await first.close()
        await second.close()
        await TestPostgres.dropDatabase(url)
    }

    /// Advances each box by one event; returns the first box's new pts.
    /// Advances each user box by one logged event; returns the first box's new pts.
    static func advance(_ boxes: [Int64], in tx: any StorageWriter) throws -> Int32 {
        try tx.lockBoxes(users: boxes)
        var first: Int32 = 0
        for box in boxes {
            var state = try tx.state(user: box)
            state.pts += 1
            try tx.append(StoredEvent(pts: state.pts, ptsCount: 1, date: 1, update: [1]), user: box)
            try tx.setState(state, user: box)
            if first == 0 { first = state.pts }
        }
        return first
    }
}

/// The cache's own rules, on an injected clock.
struct BoxStateCacheRuleTests {
    @Test func aBoxOthersWroteIsNotCachedUntilItQuietsDown() {
        let now = Mutex(100.0)
        let cache = BoxStateCache(now: { now.withLock { $0 } })
        let state = UserState(pts: 3)
        cache.remember([1: state, 2: state])
        #expect(cache.state(of: 1) == state && cache.state(of: 2) == state)
        cache.othersWrote([1])
        #expect(cache.state(of: 1) == nil && cache.state(of: 2) == state)
        cache.remember([1: UserState(pts: 4)])
        #expect(cache.state(of: 1) == nil, "written from elsewhere within the last second")
        now.withLock { $0 += BoxStateCache.sharedFor }
        cache.remember([1: UserState(pts: 5)])
        #expect(cache.state(of: 1) == UserState(pts: 5))
        cache.forget([1])
        cache.clear()
        #expect(cache.state(of: 1) == nil && cache.state(of: 2) == nil)
    }
}
