import Foundation
import Logging
import SyncTesting
import MTProto
import TL
import Testing
@testable import SyncServer

/// The RSA key and the auth keys live in the server's store (schema 13): they survive restarts, a data directory of
/// an older build has its key files imported once, and a bad key file stops the start with its line.
struct ServerKeysTests {
    static func temporaryDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-keys-\(UUID().uuidString)").path
        return path
    }

    static func key(_ seed: UInt8, created: Int32? = nil) throws -> StoredAuthKey {
        StoredAuthKey(authKey: try AuthKey(bytes: (0..<256).map { UInt8(truncatingIfNeeded: Int($0) &* 31 &+ Int(seed)) }),
                      salt: Int64(seed) - 100, expiresIn: seed % 2 == 0 ? nil : 3600, createdAt: created)
    }

    static func start(_ directory: String) async throws -> SyncServer {
        try await SyncServer.start(SyncServerConfiguration(port: 0, dc: 2, dataDirectory: directory, loginCode: "12345", seedDevAccounts: true),
                                   logger: Logger(label: "test"))
    }

    @Test func keysSurviveARestartInTheStoreAndNoKeyFileIsWritten() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try await Self.start(directory)
        let client = try await TestClient(port: first.port, publicKey: first.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        try await client.login(phone: alicePhone)
        let authKey = client.connection.key
        await client.close()
        try await first.stop()
        #expect(try ServerKeys.rsaKey(dataDirectory: directory)?.publicKey == first.keys.rsaKey.publicKey, "readable by tools")

        let second = try await Self.start(directory)
        #expect(second.keys.rsaKey.publicKey == first.keys.rsaKey.publicKey)
        #expect(try await second.keys.authKeyCount(dc: 2) == 1)
        let again = try await TestClient(port: second.port, publicKey: second.keys.rsaKey.publicKey, existingKey: authKey,
                                         inspector: checkPeerReferences)
        guard case .state = try await again.call(API.functions.updates.GetState()) else { Issue.record("not logged in"); return }
        await again.close()
        try await second.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(!files.contains { $0.hasPrefix("rsa-key") || $0.hasPrefix("auth-keys") }, "\(files)")
    }

    /// `initialRSAKey` is what a storage without a key stores; a storage that holds a key keeps its own.
    @Test func aConfiguredKeyIsStoredOnlyWhereThereIsNone() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let given = try #require(TestServerKey.key), another = try RSAPrivateKey.generate(bits: 2048)
        let configuration = { (key: RSAPrivateKey) in
            SyncServerConfiguration(port: 0, dc: 2, dataDirectory: directory, initialRSAKey: key)
        }
        let first = try await SyncServer.start(configuration(given), logger: Logger(label: "test"))
        #expect(first.keys.rsaKey.publicKey == given.publicKey)
        try await first.stop()
        let second = try await SyncServer.start(configuration(another), logger: Logger(label: "test"))
        #expect(second.keys.rsaKey.publicKey == given.publicKey, "the stored key, not the one configured")
        try await second.stop()
    }

    /// A data directory of a build before schema 13: its `rsa-key.txt` and `auth-keys.txt` are imported at the first
    /// start (a torn last record skipped), renamed `.imported`, and the imported keys work.
    @Test func keyFilesOfAnOlderDataDirectoryAreImportedOnce() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rsa = try RSAPrivateKey.generate(bits: 2048)
        try ServerKeys.install(rsa, inDirectory: directory)
        let old = try Self.key(2), temporary = try Self.key(3, created: 1_700_000_000)
        let records = [old, temporary].map { key in
            "\(String(key.authKey.id, radix: 16)) \(key.salt) \(key.expiresIn ?? 0) \(hexString(key.authKey.bytes))"
                + (key.createdAt.map { " \($0)" } ?? "")
        }
        try Data((records.joined(separator: "\n") + "\nabc 1 0 00ff").utf8).write(to: URL(fileURLWithPath: directory + "/auth-keys.txt"))

        let server = try await Self.start(directory)
        #expect(server.keys.rsaKey.publicKey == rsa.publicKey)
        #expect(try await server.keys.authKeyCount(dc: 2) == 2)
        let stored = try await server.context.storage.read { tx in
            (try tx.authKey(dc: 2, id: old.authKey.id), try tx.authKey(dc: 2, id: temporary.authKey.id), try tx.authKey(dc: 4, id: old.authKey.id))
        }
        #expect(stored.0 == old && stored.1 == temporary && stored.2 == nil, "keys belong to their data center")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains("rsa-key.txt.imported") && files.contains("auth-keys.txt.imported"), "\(files)")
        #expect(!files.contains("rsa-key.txt") && !files.contains("auth-keys.txt"))

        let client = try await TestClient(port: server.port, publicKey: rsa.publicKey, existingKey: AuthKeyExchangeResult(authKey: old.authKey, serverSalt: old.salt, serverTimeOffset: 0, dc: 2, expiresIn: nil),
                                          inspector: checkPeerReferences)
        try await client.login(phone: alicePhone)
        await client.close()
        try await server.stop()
        let restarted = try await Self.start(directory)
        #expect(try await restarted.keys.authKeyCount(dc: 2) == 2, "imported once")
        try await restarted.stop()
    }

    @Test func aCorruptKeyFileStopsTheStartWithItsLine() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let good = try Self.key(4)
        let record = "\(String(good.authKey.id, radix: 16)) \(good.salt) 0 \(hexString(good.authKey.bytes))"
        try Data("garbage line\n\(record)\n".utf8).write(to: URL(fileURLWithPath: directory + "/auth-keys.txt"))
        await #expect(throws: ServerKeyFileError.corrupt(path: directory + "/auth-keys.txt", line: 1)) { try await Self.start(directory) }

        try FileManager.default.removeItem(atPath: directory + "/auth-keys.txt")
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: directory + "/rsa-key.txt"))
        await #expect(throws: ServerKeyFileError.self) { try await Self.start(directory) }
        #expect(FileManager.default.fileExists(atPath: directory + "/rsa-key.txt"), "a file that was not imported is left as it is")
    }

    /// Finding 8: the data directory is 0700 and every file in it 0600, new or tightened at start with a warning.
    @Test func theDataDirectoryIsReadableByTheServersUserOnly() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
        let server = try await Self.start(directory)
        let client = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        try await client.login(phone: alicePhone)
        await client.close()
        try await server.stop()
        #expect(try mode(directory) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains("server.sqlite"))
        for file in files { #expect(try mode(directory + "/" + file) == 0o600, "\(file)") }

        // An existing directory that others may read is tightened, with its files.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory + "/server.sqlite")
        let warnings = try DataDirectoryPermissions.secure(directory: directory) + DataDirectoryPermissions.secureFiles(in: directory)
        #expect(warnings.count == 2)
        #expect(try mode(directory) == 0o700 && mode(directory + "/server.sqlite") == 0o600)
    }
}
