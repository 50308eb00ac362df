import Foundation
import Logging
import SyncTesting
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
        // The torn tail was cut on disk: the next append is a whole record, and both keys load again (before, the
        // append followed the torn bytes on their line and the next start stopped on a corrupt record).
        try reopened.store(try Self.key(4))
        let again = try ServerKeyFiles(directory: directory)
        #expect(again.authKeyCount == 2 && again.warnings.isEmpty)

        try Data("garbage line\n".utf8 + (try Data(contentsOf: URL(fileURLWithPath: path)))).write(to: URL(fileURLWithPath: path))
        #expect(throws: ServerKeyFileError.self) { try ServerKeyFiles(directory: directory) }
    }

    /// Finding 8: the data directory is 0700 and every file in it 0600, new or tightened at start with a warning.
    @Test func theDataDirectoryIsReadableByTheServersUserOnly() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
        let server = try await SyncServer.start(SyncServerConfiguration(port: 0, dataDirectory: directory, loginCode: "12345",
                                                                        seedDevAccounts: true), logger: Logger(label: "test"))
        let client = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        try await client.login(phone: alicePhone)
        await client.close()
        try await server.stop()
        #expect(try mode(directory) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains("server.sqlite") && files.contains("auth-keys.txt") && files.contains("rsa-key.txt"))
        #expect(!files.contains("rsa-key.txt.new"))
        for file in files { #expect(try mode(directory + "/" + file) == 0o600, "\(file)") }

        // An existing directory that others may read is tightened, with its files.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory + "/server.sqlite")
        let keys = try ServerKeyFiles(directory: directory)
        #expect(keys.warnings.count == 2)
        #expect(try mode(directory) == 0o700 && mode(directory + "/server.sqlite") == 0o600)
    }

    @Test func aCorruptRSAKeyFileIsAnErrorNotANewKey() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: directory + "/rsa-key.txt"))
        #expect(throws: ServerKeyFileError.self) { try ServerKeyFiles(directory: directory) }
    }
}
