import Foundation
import Logging
import NIOPosix
import Synchronization
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// A recipient's process whose read of the logs fails (PostgreSQL restarting under it) reads the same range again
/// once the database answers: the announcement that named it has already been taken, so nothing else would.
@Suite(.timeLimit(.minutes(2)), .enabled(if: TestPostgres.url != nil))
struct CrossProcessPushRecoveryTests {
    @Test func aFailedLogReadIsReadAgainAndPushedOnce() async throws {
        let first = try await ServerHarness(backend: .postgres)
        let storage = FlakyLogReads(try await first.openStorage())
        let second = try await SyncServer.start(
            SyncServerConfiguration(port: 0, dataDirectory: first.directory, loginCode: "12345", postgresURL: first.postgresURL,
                                    initialRSAKey: TestServerKey.key),
            storage: storage, logger: Logger(label: "test"), group: MultiThreadedEventLoopGroup.singleton)
        let alice = try await first.loggedIn(alicePhone)
        let bob = try await TestClient(port: second.port, publicKey: first.server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        try await bob.login(phone: bobPhone)
        let inbox = PushInbox(bob)
        let toBob = try await inputUser(1002, in: alice)

        storage.failNextReads(1)
        _ = try await alice.call(API.functions.messages.SendMessage(peer: toBob, message: "through a failed read", randomId: 1))
        #expect(await inbox.wait(for: 1, seconds: 10), "the range whose read failed was read again")
        #expect(storage.failed == 1)
        _ = try await alice.call(API.functions.messages.SendMessage(peer: toBob, message: "after it", randomId: 2))
        #expect(await inbox.wait(for: 2, seconds: 10))
        try await Task.sleep(for: .milliseconds(300))
        #expect(inbox.messages.map(\.text) == ["through a failed read", "after it"])
        #expect(inbox.messages.map(\.pts) == [1, 2])

        await alice.close()
        await bob.close()
        try await second.stop()
        try await first.stop()
    }
}

/// A storage whose next log reads for pushes fail as a lost connection to PostgreSQL fails them; the rest goes to
/// the wrapped storage.
private final class FlakyLogReads: ServerStorage {
    private let wrapped: any ServerStorage
    private let toFail = Mutex(0)
    private let failures = Mutex(0)

    init(_ wrapped: any ServerStorage) { self.wrapped = wrapped }

    func failNextReads(_ count: Int) { toFail.withLock { $0 = count } }
    var failed: Int { failures.withLock { $0 } }

    func events(in ranges: [LogRange]) async throws -> [Int64: [StoredEvent]] {
        let fails = toFail.withLock { count in
            defer { count = max(0, count - 1) }
            return count > 0
        }
        guard !fails else {
            failures.withLock { $0 += 1 }
            throw ServerStorageError.database("connection reset by peer (injected)")
        }
        return try await wrapped.events(in: ranges)
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T { try await wrapped.read(body) }
    func readLatest<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T {
        try await wrapped.readLatest(body)
    }
    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T { try await wrapped.write(body) }
    func write<T: Sendable>(locking boxes: [Int64], _ body: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T {
        try await wrapped.write(locking: boxes, body)
    }
    func close() async { await wrapped.close() }
    var commitFeed: CommitFeed? { wrapped.commitFeed }
}
