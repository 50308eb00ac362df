import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The data directory holds every auth key and, with SQLite, every message and phone number: only the server's user
/// may read it. The directory is made (or tightened to) 0700 and every file in it to 0600 at start; what was looser
/// is named in a warning, so an operator learns that other local users could read it until now.
enum DataDirectoryPermissions {
    /// Creates `directory` with mode 0700, or tightens an existing one; returns what was tightened.
    static func secure(directory: String) throws -> [String] {
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            return []
        }
        return try tighten(directory, to: 0o700).map { [$0] } ?? []
    }

    /// Tightens every regular file directly in `directory` to 0600; returns what was tightened.
    static func secureFiles(in directory: String) throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return try names.sorted().compactMap { name in
            var status = stat()
            let path = directory + "/" + name
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            return try tighten(path, to: 0o600)
        }
    }

    /// Creates an empty file with mode 0600 unless it exists (SQLite then makes its -wal and -shm files with the same
    /// mode as the database file).
    static func createPrivateFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw ServerKeyFileError.unreadable(path: path, reason: "cannot create (errno \(errno))")
        }
    }

    /// Removes the group and other bits of `path` beyond `mode`; returns a warning when there were any.
    private static func tighten(_ path: String, to mode: mode_t) throws -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { throw ServerKeyFileError.unreadable(path: path, reason: "cannot stat (errno \(errno))") }
        let current = status.st_mode & 0o777
        guard current & ~mode != 0 else { return nil }
        guard chmod(path, current & mode) == 0 else {
            throw ServerKeyFileError.unreadable(path: path, reason: "mode \(String(current, radix: 8)) lets other users read it, and it cannot be changed (errno \(errno))")
        }
        return "\(path): mode \(String(current, radix: 8)) let other users read it; now \(String(current & mode, radix: 8))"
    }
}
