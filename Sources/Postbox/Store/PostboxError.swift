/// Why the store refused to open or to commit. Nothing is written when one of these is thrown.
public enum PostboxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is not a usable SQLite database (truncated, corrupted, not a database).
    case corruptDatabase(path: String, reason: String)
    /// The database was written by a newer version of this schema.
    case newerSchema(found: Int, supported: Int)
    /// SQLite could not write (disk full, read-only file system, …).
    case writeFailed(reason: String)
    case openFailed(path: String, reason: String)

    /// The error in words, for logs and command-line output.
    public var description: String {
        switch self {
        case let .corruptDatabase(path, reason): return "\(path) is not a usable Postbox database: \(reason)"
        case let .newerSchema(found, supported): return "database schema \(found) is newer than this Postbox (\(supported))"
        case let .writeFailed(reason): return "could not write the database: \(reason)"
        case let .openFailed(path, reason): return "could not open \(path): \(reason)"
        }
    }
}
