import Logging
import NIOCore
import NIOPosix
import SyncTesting
import Testing
@testable import SyncServer

/// `PostgresSession`'s statements on a connection that is already closed.
@Suite(.timeLimit(.minutes(1)), .enabled(if: TestPostgres.url != nil))
struct PostgresSessionTests {
    private enum SelectOne: PostgresSQL { static let sql = "SELECT 1" }

    /// postgres-nio (1.33) leaves a statement written to a closed connection unanswered; the session refuses it
    /// with a storage error instead, so a caller whose connection closed under it fails (a 500) rather than waiting
    /// forever. Both ways of running a statement: awaited on the event loop, and blocking a thread of the pool.
    @Test func statementsOnAClosedConnectionFailAtOnce() async throws {
        let url = try #require(TestPostgres.url)
        let pool = PostgresSessionPool(configuration: try PostgresURL.configuration(url), size: 1, logger: Logger(label: "test"))
        let session = try await pool.connect(on: MultiThreadedEventLoopGroup.singleton.any())
        #expect(try await session.rows(Prepared<SelectOne>()).count == 1)
        try await pool.run { _ in try session.run("SELECT 1") }

        try await session.connection.close()
        await #expect(throws: ServerStorageError.self) { try await session.rows(Prepared<SelectOne>()) }
        await #expect(throws: ServerStorageError.self) { try await pool.run { _ in try session.rows(Prepared<SelectOne>()) } }
        await #expect(throws: ServerStorageError.self) { try await pool.run { _ in try session.run("SELECT 1") } }
        await pool.shutdown()
    }
}
