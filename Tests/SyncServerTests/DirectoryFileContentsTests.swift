import Foundation
import Logging
import Testing
@testable import SyncServer

/// Upload parts beside SQLite's store, written by several writers at once.
struct DirectoryFileContentsTests {
    /// A part sent again while its first copy is still being written (a client retrying at once) is kept once, whole,
    /// and no temporary file stays behind. Before each writer had a temporary name of its own, one of two writers'
    /// renames found the shared `.partial` file gone and the call failed.
    @Test func aPartWrittenByManyWritersAtOnceIsKeptWhole() async throws {
        let directory = ServerKeysTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let storage = try await SyncServer.openStorage(SyncServerConfiguration(dataDirectory: directory), logger: Logger(label: "test"))
        let files = DirectoryFileContents(dataDirectory: directory, storage: storage)
        let copies = (0..<16).map { copy in [UInt8](repeating: UInt8(copy), count: 64 * 1024) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for bytes in copies {
                group.addTask { try await files.keepPart(owner: 1001, fileID: 5, part: 0, bytes: bytes) }
            }
            try await group.waitForAll()
        }
        let kept = try await files.partBytes(owner: 1001, fileID: 5, part: 0)
        #expect(copies.contains(kept))
        let names = try FileManager.default.contentsOfDirectory(atPath: files.uploadDirectory(owner: 1001, fileID: 5))
        #expect(names == ["0"])
        await storage.close()
    }
}
