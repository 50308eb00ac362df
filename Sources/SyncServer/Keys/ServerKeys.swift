import GRDB
import Logging
import MTProto
import NIOPosix

/// The server's RSA key and its data centers' auth keys, kept in the storage (`KeySQL`): every process serving a data
/// center on one PostgreSQL database answers key exchanges with one RSA key and knows every auth key, whatever its
/// data directory holds; with SQLite they live in `server.sqlite` beside the rest.
///
/// At start the first process of a new database makes the RSA key (the others read the one stored first), and key
/// files of a data directory written before schema 13 are imported once (`LegacyKeyFiles`).
public final class ServerKeys: Sendable {
    public let rsaKey: RSAPrivateKey
    /// Each served data center's auth keys.
    let directories: [Int32: AuthKeyDirectory]

    private init(rsaKey: RSAPrivateKey, directories: [Int32: AuthKeyDirectory]) {
        self.rsaKey = rsaKey
        self.directories = directories
    }

    /// Auth keys of `dc` stored now (a count of the database's rows).
    public func authKeyCount(dc: Int32) async throws -> Int {
        guard let directory = directories[dc] else { return 0 }
        return try await directory.count()
    }

    /// Loads (or stores `initialKey`, or makes and stores) the RSA key and imports the data directory's key files, for
    /// `dcs`. A key is made on NIO's thread pool, which exists for blocking work: on Swift concurrency's pool (one thread
    /// per core) it held a thread for a second, and a test suite starting many servers held them all.
    static func open(storage: any ServerStorage, dataDirectory: String, dcs: [Int32], initialKey: RSAPrivateKey? = nil,
                     logger: Logger) async throws -> ServerKeys {
        try await importFiles(of: dataDirectory, dcs: dcs, into: storage, logger: logger)
        let rsaKey: RSAPrivateKey
        if let stored = try await storage.read({ try $0.rsaKey() }) {
            rsaKey = stored
        } else {
            let made: RSAPrivateKey
            if let initialKey { made = initialKey } else {
                made = try await NIOThreadPool.singleton.runIfActive { try RSAPrivateKey.generate(bits: 2048) }
            }
            rsaKey = try await storage.write { tx in
                try tx.insertRSAKeyIfAbsent(made)
                guard let stored = try tx.rsaKey() else { throw ServerStorageError.database("the RSA key just stored is not there") }
                return stored
            }
            if rsaKey.publicKey == made.publicKey {
                logger.notice(initialKey == nil ? "made the server's RSA key" : "stored the configured RSA key",
                              metadata: ["rsa_fingerprint": "\(rsaKey.publicKey.fingerprint)"])
            }
        }
        let directories = Dictionary(uniqueKeysWithValues: dcs.map { ($0, AuthKeyDirectory(dc: $0, storage: storage, logger: logger)) })
        return ServerKeys(rsaKey: rsaKey, directories: directories)
    }

    /// Imports `rsa-key.txt` and the auth-key files of a data directory into the storage, then marks them imported.
    /// A key file's RSA key that differs from the one stored already is not used (the database's is every process's),
    /// and a warning says so.
    private static func importFiles(of directory: String, dcs: [Int32], into storage: any ServerStorage, logger: Logger) async throws {
        var warnings: [String] = []
        let rsaKey = try LegacyKeyFiles.rsaKey(inDirectory: directory)
        var authKeys: [(dc: Int32, keys: [StoredAuthKey], file: String)] = []
        for dc in dcs {
            let file = LegacyKeyFiles.authKeysFile(dc: dc, dcCount: dcs.count)
            authKeys.append((dc, try LegacyKeyFiles.authKeys(inDirectory: directory, file: file, warnings: &warnings), file))
        }
        for warning in warnings { logger.warning("\(warning)") }
        guard rsaKey != nil || authKeys.contains(where: { !$0.keys.isEmpty }) else { return }
        let stored = try await storage.write { [authKeys] tx in
            if let rsaKey { try tx.insertRSAKeyIfAbsent(rsaKey) }
            for entry in authKeys {
                for key in entry.keys { try tx.insert(key, dc: entry.dc) }
            }
            return try tx.rsaKey()
        }
        if let rsaKey {
            if stored?.publicKey != rsaKey.publicKey {
                logger.warning("the data directory's RSA key differs from the database's, which every process uses; the file's is not used",
                               metadata: ["file": "\(directory)/\(LegacyKeyFiles.rsaKeyFile)"])
            }
            try LegacyKeyFiles.markImported(LegacyKeyFiles.rsaKeyFile, inDirectory: directory)
        }
        for entry in authKeys {
            try LegacyKeyFiles.markImported(entry.file, inDirectory: directory)
            if !entry.keys.isEmpty {
                logger.notice("imported auth keys into the database", metadata: ["dc": "\(entry.dc)", "keys": "\(entry.keys.count)"])
            }
        }
    }

    /// Gives a new data directory an RSA key of one's own, imported by the server's first start there.
    public static func install(_ key: RSAPrivateKey, inDirectory directory: String) throws {
        try LegacyKeyFiles.install(key, inDirectory: directory)
    }

    /// The RSA key of the embedded store in `dataDirectory`, read without opening the store for writing (tools that
    /// talk to a server running on that directory in another process); nil before the server's first start.
    public static func rsaKey(dataDirectory: String) throws -> RSAPrivateKey? {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: dataDirectory + "/server.sqlite", configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists("rsa_keys") else { return nil }
            return try SQLiteTransaction(db: db).rsaKey()
        }
    }
}
