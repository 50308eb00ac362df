import Foundation
#if canImport(Glibc)
import Glibc
private let posixWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let posixWrite = Darwin.write
#endif
import MTProto
import MTProtoNIO
import Synchronization
import TL

/// Why the server's key files could not be used.
public enum ServerKeyFileError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case corrupt(path: String, line: Int)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): return "\(path): \(reason)"
        case let .corrupt(path, line): return "\(path):\(line): not a valid key record"
        }
    }
}

/// The server's RSA key and every auth key it created, kept in its data directory so that clients' stored keys
/// keep working across restarts.
///
/// `rsa-key.txt` holds n, e and d in hex (created on first start, mode 0600). `auth-keys.txt` is append-only, one
/// key per line (`id salt expires_in key`), each line synced to disk before the exchange's `dh_gen_ok` is sent.
/// A torn last line (a crash mid-write) is cut off at start with a warning; any other bad line stops the server with
/// its line number rather than silently forgetting keys. The directory is 0700 and every file 0600
/// (`DataDirectoryPermissions`).
public final class ServerKeyFiles: Sendable {
    public let rsaKey: RSAPrivateKey
    private let authKeysPath: String
    private let keys: Mutex<LoadedKeys>
    /// Problems found while loading that did not stop the server.
    public let warnings: [String]

    /// `authKeysFile` names the auth-key file inside `directory` (one per data center when several are served).
    public init(directory: String, authKeysFile: String = "auth-keys.txt") throws {
        var warnings = try DataDirectoryPermissions.secure(directory: directory)
        rsaKey = try Self.loadOrCreateRSAKey(path: directory + "/rsa-key.txt")
        authKeysPath = directory + "/" + authKeysFile
        let data = try Self.truncatingTornTail(path: authKeysPath, warnings: &warnings)
        keys = Mutex(LoadedKeys(keys: try Self.parseAuthKeys(data, path: authKeysPath, warnings: &warnings), size: data.count))
        warnings += try DataDirectoryPermissions.secureFiles(in: directory)
        self.warnings = warnings
    }

    /// The key file's records, after cutting off an incomplete last one (a crash mid-append) on disk: left there, the
    /// next append would follow it on the same line and turn it into a corrupt record in the middle, which stops the
    /// server. Under the file's lock, so another process of the DC is never cut mid-append.
    private static func truncatingTornTail(path: String, warnings: inout [String]) throws -> Data {
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else { throw ServerKeyFileError.unreadable(path: path, reason: "cannot open (errno \(errno))") }
        defer { close(descriptor) }
        flock(descriptor, LOCK_EX)
        defer { flock(descriptor, LOCK_UN) }
        let data = FileManager.default.contents(atPath: path) ?? Data()
        guard !data.isEmpty, data.last != UInt8(ascii: "\n") else { return data }
        let keep = data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? data.startIndex
        guard ftruncate(descriptor, off_t(keep - data.startIndex)) == 0, fsync(descriptor) == 0 else {
            throw ServerKeyFileError.unreadable(path: path, reason: "cannot cut an incomplete last record (errno \(errno))")
        }
        warnings.append("\(path): cut an incomplete last record of \(data.count - (keep - data.startIndex)) bytes (interrupted write)")
        return Data(data[..<keep])
    }

    /// The keys read so far, and how many bytes of the file they came from.
    private struct LoadedKeys {
        var keys: [UInt64: StoredAuthKey]
        var size: Int
    }

    public var authKeyCount: Int { keys.withLock { $0.keys.count } }

    /// A key this process does not know is looked for in what other processes appended since: the processes
    /// serving one DC share its data directory, and a client whose process died reconnects to another with its key.
    public func authKey(id: UInt64) -> StoredAuthKey? {
        keys.withLock { loaded in
            if let key = loaded.keys[id] { return key }
            Self.readAppended(path: authKeysPath, into: &loaded)
            return loaded.keys[id]
        }
    }

    /// Reads the complete records appended after what `loaded` holds (nothing when the file has not grown: one
    /// `stat`, so unknown key ids from a hostile client cost little).
    private static func readAppended(path: String, into loaded: inout LoadedKeys) {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > loaded.size,
              let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: UInt64(loaded.size))) != nil, let data = try? handle.readToEnd(),
              let end = data.lastIndex(of: UInt8(ascii: "\n")) else { return }
        let complete = Data(data[data.startIndex...end])
        var ignored: [String] = []
        if let keys = try? parseAuthKeys(complete, path: path, warnings: &ignored) {
            loaded.keys.merge(keys) { _, appended in appended }
        }
        loaded.size += complete.count
    }

    /// Appends `key` and syncs the file before returning. The append holds the file's lock (other processes of the DC
    /// append to it too) but not the in-memory map's: lookups of other keys do not wait for the sync.
    public func store(_ key: StoredAuthKey) throws {
        let line = "\(String(key.authKey.id, radix: 16)) \(key.salt) \(key.expiresIn ?? 0) \(hexString(key.authKey.bytes)) \(key.createdAt ?? 0)\n"
        // O_APPEND: each record lands whole at the end, in one write.
        let descriptor = open(authKeysPath, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        guard descriptor >= 0 else {
            throw ServerKeyFileError.unreadable(path: authKeysPath, reason: "cannot open for writing (errno \(errno))")
        }
        defer { close(descriptor) }
        flock(descriptor, LOCK_EX)
        defer { flock(descriptor, LOCK_UN) }
        let bytes = Array(line.utf8)
        let written = bytes.withUnsafeBytes { posixWrite(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            throw ServerKeyFileError.unreadable(path: authKeysPath, reason: "cannot append a key (errno \(errno))")
        }
        keys.withLock { $0.keys[key.authKey.id] = key }
    }

    private static func loadOrCreateRSAKey(path: String) throws -> RSAPrivateKey {
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            let parts = text.split(whereSeparator: \.isWhitespace).map(String.init)
            guard parts.count == 3, let n = bytesFromHex(parts[0]), let e = bytesFromHex(parts[1]), let d = bytesFromHex(parts[2]) else {
                throw ServerKeyFileError.corrupt(path: path, line: 1)
            }
            return RSAPrivateKey(modulus: n, publicExponent: e, privateExponent: d)
        }
        let key = try RSAPrivateKey.generate(bits: 2048)
        try write(key, to: path)
        return key
    }

    /// Gives a new data directory an existing RSA key (simulations start many servers; generating a 2048-bit key
    /// takes longer than the rest of a start).
    public static func install(_ key: RSAPrivateKey, inDirectory directory: String) throws {
        _ = try DataDirectoryPermissions.secure(directory: directory)
        try write(key, to: directory + "/rsa-key.txt")
    }

    /// Writes the key durably: a temporary file (0600) synced, renamed over `path`, and the directory synced, so a
    /// crash leaves the old key or the new one, never a torn or missing file.
    private static func write(_ key: RSAPrivateKey, to path: String) throws {
        let text = [key.publicKey.modulus, key.publicKey.exponent, key.privateExponent].map(hexString).joined(separator: "\n") + "\n"
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw ServerKeyFileError.unreadable(path: temporary, reason: "cannot create (errno \(errno))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { posixWrite(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            throw ServerKeyFileError.unreadable(path: path, reason: "cannot write (errno \(errno))")
        }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    private static func parseAuthKeys(_ data: Data, path: String, warnings: inout [String]) throws -> [UInt64: StoredAuthKey] {
        let text = String(decoding: data, as: UTF8.self)
        var keys: [UInt64: StoredAuthKey] = [:]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let parts = line.split(separator: " ")
            // Records before the creation time was kept have four fields.
            guard parts.count == 4 || parts.count == 5, let salt = Int64(parts[1]), let expires = Int32(parts[2]),
                  let bytes = bytesFromHex(String(parts[3])), let authKey = try? AuthKey(bytes: bytes),
                  String(authKey.id, radix: 16) == parts[0], let created = parts.count == 5 ? Int32(parts[4]) : 0
            else {
                let isTornTail = index == lines.count - 1 && !text.hasSuffix("\n")
                if isTornTail {
                    warnings.append("\(path):\(index + 1): ignored an incomplete last record (interrupted write)")
                    continue
                }
                throw ServerKeyFileError.corrupt(path: path, line: index + 1)
            }
            keys[authKey.id] = StoredAuthKey(authKey: authKey, salt: salt, expiresIn: expires == 0 ? nil : expires,
                                             createdAt: created == 0 ? nil : created)
        }
        return keys
    }
}
