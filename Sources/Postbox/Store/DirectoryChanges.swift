#if canImport(Glibc)
import Foundation
import Glibc
import Synchronization

/// Writes into a directory as they happen (Linux inotify: a file modified, created or moved in), for noticing another
/// process's commits without polling: the store's write-ahead log lives beside it. A thread of its own waits in `read`,
/// so an idle app costs nothing. The stream ends when its consumer stops (the watch is removed, which wakes the
/// thread).
public enum DirectoryChanges {
    /// Nil when the directory cannot be watched (no inotify, the per-user limit reached): the caller polls instead.
    public static func stream(_ directory: String) -> AsyncStream<Void>? {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let watch = inotify_add_watch(descriptor, directory, UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO))
        guard watch >= 0 else {
            close(descriptor)
            return nil
        }
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let stopped = Mutex(false)
        continuation.onTermination = { _ in
            stopped.withLock { $0 = true }
            inotify_rm_watch(descriptor, watch)   // queues IN_IGNORED: the blocked read returns
        }
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while !stopped.withLock({ $0 }) {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                continuation.yield()
            }
            close(descriptor)
            continuation.finish()
        }.start()
        return stream
    }
}
#endif
