import Foundation
#if canImport(Glibc)
import Glibc
private let posixWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let posixWrite = Darwin.write
#endif
import MTProto
import TL

/// Why key files of a data directory could not be imported.
public enum ServerKeyFileError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case corrupt(path: String, line: Int)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): return "\(path): \(reason)"
        case let .corrupt(path, line): return "\(path):\(line): not a valid key record"
        }
    }
}

/// The key files a data directory held before the keys moved into the database (schema 13), read once to import
/// them (`ServerKeys.open`), and the way to give a new data directory an RSA key of one's own.
///
/// `rsa-key.txt` holds n, e and d in hex, one per line. `auth-keys.txt` (`auth-keys-dcN.txt` when a process served
/// several data centers) holds one key per line: `id salt expires_in key [created_at]`, the id and key in hex. A torn
/// last line (a crash mid-append) is skipped with a warning; any other bad line stops the import with its line number
/// rather than silently forgetting keys. An imported file is renamed `….imported`, so it is read once.
enum LegacyKeyFiles {
    static let rsaKeyFile = "rsa-key.txt"

    /// The auth-key file of data center `dc`, as a process serving `dcCount` data centers named it.
    static func authKeysFile(dc: Int32, dcCount: Int) -> String {
        dcCount > 1 ? "auth-keys-dc\(dc).txt" : "auth-keys.txt"
    }

    /// The RSA key of `directory`'s `rsa-key.txt`, nil when there is none.
    static func rsaKey(inDirectory directory: String) throws -> RSAPrivateKey? {
        let path = directory + "/" + rsaKeyFile
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let parts = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard parts.count == 3, let n = bytesFromHex(parts[0]), let e = bytesFromHex(parts[1]), let d = bytesFromHex(parts[2]) else {
            throw ServerKeyFileError.corrupt(path: path, line: 1)
        }
        return RSAPrivateKey(modulus: n, publicExponent: e, privateExponent: d)
    }

    /// The auth keys of `directory`'s file `name` (none when there is no such file).
    static func authKeys(inDirectory directory: String, file name: String, warnings: inout [String]) throws -> [StoredAuthKey] {
        let path = directory + "/" + name
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return try parseAuthKeys(data, path: path, warnings: &warnings)
    }

    /// Renames an imported file to `….imported` (kept, not deleted: the keys it held are in the database now, and the
    /// file is what an operator would look for if they were not).
    static func markImported(_ name: String, inDirectory directory: String) throws {
        let path = directory + "/" + name
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard rename(path, path + ".imported") == 0 else {
            throw ServerKeyFileError.unreadable(path: path, reason: "cannot rename after importing it (errno \(errno))")
        }
    }

    /// Gives `directory` an RSA key that the server's first start there imports (simulations start many servers;
    /// generating a 2048-bit key takes longer than the rest of a start). Written durably: a temporary file (0600)
    /// synced and renamed over the key file, so a crash leaves the old file or the new one, never a torn one.
    static func install(_ key: RSAPrivateKey, inDirectory directory: String) throws {
        _ = try DataDirectoryPermissions.secure(directory: directory)
        let path = directory + "/" + rsaKeyFile
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
    }

    static func parseAuthKeys(_ data: Data, path: String, warnings: inout [String]) throws -> [StoredAuthKey] {
        let text = String(decoding: data, as: UTF8.self)
        var keys: [StoredAuthKey] = []
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
            keys.append(StoredAuthKey(authKey: authKey, salt: salt, expiresIn: expires == 0 ? nil : expires,
                                      createdAt: created == 0 ? nil : created))
        }
        return keys
    }
}
