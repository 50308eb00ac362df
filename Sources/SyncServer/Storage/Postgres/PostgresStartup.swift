import Foundation
import Logging
import MTProto
import PostgresNIO

extension ServerStorageError {
    /// A failure that waiting may mend (`unavailable`), as opposed to one that needs the operator.
    public var isUnavailable: Bool {
        if case .unavailable = self { true } else { false }
    }
}

/// A server started before its database (a machine booting, an orchestrator starting both at once) waits for it
/// instead of exiting: `open` is tried again after each failure that waiting may mend — refused, closed, PostgreSQL
/// starting up or out of connections — with a backoff from 0.25 s doubling to 4 s, each wait logged, until `wait` has
/// passed. What waiting cannot mend (a wrong password, a database that does not exist, a bad URL) stops the start at
/// once, with what to do about it.
enum PostgresStartup {
    /// The longest pause between two attempts.
    static let backoffCap = 4.0

    static func open<Storage>(wait: Duration, address: String, environment: SyncEnvironment, logger: Logger,
                              _ open: () async throws -> Storage) async throws -> Storage {
        let started = environment.uptime()
        var attempt = 0
        while true {
            do {
                let storage = try await open()
                if attempt > 0 {
                    logger.notice("PostgreSQL answers; starting", metadata: [
                        "database": "\(address)", "waited": "\(String(format: "%.1f", environment.uptime() - started)) s",
                    ])
                }
                return storage
            } catch let error as ServerStorageError where error.isUnavailable {
                attempt += 1
                let delay = min(backoffCap, 0.25 * Double(1 << min(attempt - 1, 8)))
                let waited = environment.uptime() - started
                guard waited + delay <= wait.seconds else {
                    throw ServerStorageError.cannotOpen(path: address, reason: """
                        PostgreSQL did not answer within \(Int(wait.seconds)) s (\(error)); is it running at that address? \
                        (--postgres-wait sets how long a start waits)
                        """)
                }
                logger.warning("waiting for PostgreSQL", metadata: [
                    "database": "\(address)", "attempt": "\(attempt)", "cause": "\(error)", "next_try_in": "\(delay) s",
                ])
                try await environment.sleep(seconds: delay)
            }
        }
    }

    /// What to do about a failure that needs the operator: a database that does not exist says how to create it.
    static func advice(for failure: any Error, _ configuration: PostgresConnection.Configuration) -> String {
        guard case let .database(message)? = failure as? ServerStorageError, message.contains("SQLSTATE 3D000") else { return "\(failure)" }
        let database = configuration.database ?? configuration.username
        return """
            \(message); create it first, as a PostgreSQL superuser: CREATE DATABASE "\(database)" OWNER "\(configuration.username)"; \
            (or, on the database host: createdb -O \(configuration.username) \(database)); see docs/SCALING.md
            """
    }
}
