#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says of a file that changes whenever it is written: its size, its modification time to the nanosecond
/// and its inode (a file replaced by another). Nil when it cannot be read (no such file).
struct FileSignature: Equatable, Sendable {
    let size: Int64
    let seconds: Int
    let nanoseconds: Int
    let inode: UInt64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int64(info.st_size)
        inode = UInt64(info.st_ino)
        #if canImport(Darwin)
        (seconds, nanoseconds) = (info.st_mtimespec.tv_sec, info.st_mtimespec.tv_nsec)
        #else
        (seconds, nanoseconds) = (info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
        #endif
    }
}
