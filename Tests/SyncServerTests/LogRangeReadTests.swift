import Foundation
import Logging
import SyncTesting
import Testing
@testable import SyncServer

/// `events(in:)`, the read behind pushes across processes: several users' logs at once, each cut to its range, the
/// same whether read in a snapshot, without one, or on its own (one statement on PostgreSQL).
struct LogRangeReadTests {
    @Test(arguments: StorageBackend.all) func severalLogsAreReadAtOnce(backend: StorageBackend) async throws {
        let directory = ServerKeysTests.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let database = backend == .postgres ? try await TestPostgres.createDatabase() : nil
        let storage = try await SyncServer.openStorage(SyncServerConfiguration(dataDirectory: directory, postgresURL: database),
                                                       logger: Logger(label: "test"))
        try await storage.write { tx in
            for (user, count) in [(Int64(1), Int32(5)), (2, 3)] {
                for pts in 1...count { try tx.append(StoredEvent(pts: pts, ptsCount: 1, date: pts, update: [UInt8(pts)]), user: user) }
                try tx.setState(UserState(pts: count), user: user)
            }
        }
        let ranges = [LogRange(user: 1, after: 1, upTo: 4), LogRange(user: 2, after: 0, upTo: 9), LogRange(user: 3, after: 0, upTo: 5),
                      LogRange(user: 4, after: 2, upTo: 2)]
        let expected: [Int64: [Int32]] = [1: [2, 3, 4], 2: [1, 2, 3]]
        let alone = try await storage.events(in: ranges)
        let inSnapshot = try await storage.read { try $0.events(in: ranges) }
        let latest = try await storage.readLatest { try $0.events(in: ranges) }
        for read in [alone, inSnapshot, latest] {
            #expect(read.mapValues { $0.map(\.pts) } == expected)
            #expect(read[1]?.map(\.update) == [[2], [3], [4]])
        }
        await storage.close()
        try? FileManager.default.removeItem(atPath: directory)
        if let database { await TestPostgres.dropDatabase(database) }
    }
}
