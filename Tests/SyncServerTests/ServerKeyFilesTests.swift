import Foundation
import MTProto
import Testing
@testable import SyncServer

struct ServerKeyFilesTests {
    static func temporaryDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-keys-\(UUID().uuidString)").path
        return path
    }

    static func key(_ seed: UInt8) throws -> StoredAuthKey {
        StoredAuthKey(authKey: try AuthKey(bytes: (0..<256).map { UInt8(truncatingIfNeeded: Int($0) &* 31 &+ Int(seed)) }),
                      salt: Int64(seed) - 100, expiresIn: seed % 2 == 0 ? nil : 3600)
    }

    @Test func keysSurviveAReopen() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try ServerKeyFiles(directory: directory)
        try first.store(try Self.key(1))
        try first.store(try Self.key(2))
        let second = try ServerKeyFiles(directory: directory)
        #expect(second.rsaKey.publicKey == first.rsaKey.publicKey)
        #expect(second.authKeyCount == 2)
        #expect(second.authKey(id: try Self.key(1).authKey.id) == (try Self.key(1)))
        #expect(second.authKey(id: try Self.key(2).authKey.id) == (try Self.key(2)))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/rsa-key.txt")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func aTornLastRecordIsIgnoredAndACorruptOneIsReported() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try ServerKeyFiles(directory: directory)
        try files.store(try Self.key(3))
        let path = directory + "/auth-keys.txt"
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("abc 1 0 00ff".utf8))   // a write cut short: no newline
        try handle.close()
        let reopened = try ServerKeyFiles(directory: directory)
        #expect(reopened.authKeyCount == 1)
        #expect(reopened.warnings.count == 1)

        try Data("garbage line\n".utf8 + (try Data(contentsOf: URL(fileURLWithPath: path)))).write(to: URL(fileURLWithPath: path))
        #expect(throws: ServerKeyFileError.self) { try ServerKeyFiles(directory: directory) }
    }

    @Test func aCorruptRSAKeyFileIsAnErrorNotANewKey() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: directory + "/rsa-key.txt"))
        #expect(throws: ServerKeyFileError.self) { try ServerKeyFiles(directory: directory) }
    }
}
