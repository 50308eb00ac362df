#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Which of the processes that open one account directory (an app and its share extension or notification service)
/// syncs it: the one holding an exclusive `flock` on `master.lock`. The kernel drops a lock when its process ends,
/// however it ends (SIGKILL included), so another process takes over at its next attempt; a lease written into the
/// store instead would need a commit every few hundred milliseconds, each of which reloads every view of the other
/// process. Separate opens in one process are separate claimants too (each `Account` instance is a client).
final class MasterLease: Sendable {
    private let path: String
    private let descriptor = Mutex<Int32?>(nil)

    init(directory: String) {
        path = directory + "/master.lock"
    }

    /// Takes the lease unless a live client holds it; true while this one holds it.
    func tryAcquire() -> Bool {
        descriptor.withLock { held in
            if held != nil { return true }
            let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return false }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                return false
            }
            held = fd
            return true
        }
    }

    var isHeld: Bool { descriptor.withLock { $0 != nil } }

    func release() {
        descriptor.withLock { held in
            guard let fd = held else { return }
            flock(fd, LOCK_UN)
            close(fd)
            held = nil
        }
    }

    deinit { release() }
}
