import MTProtoNIO
import Synchronization

/// Replay protection across the processes of a data center (core.telegram.org/mtproto/security_guidelines: the server
/// keeps the msg_ids of a session to ignore a packet sent twice). Each process keeps its sessions' windows in memory
/// (`ReplayWindows`), so a packet captured on its way to one process and sent to another would find no window there.
/// When the processes share a database, the first packet of each session on a connection therefore waits for a claim
/// (one write): the session is this process's from now on, and unless this process was the last to claim it, its
/// window here starts afresh and refuses msg_ids from before the session's first frame arrived here (less `slack`, for
/// clients whose clock runs a little behind). A packet replayed to another process is thus refused unless it was sent
/// within `slack` seconds of the replay; one replayed to the process that took it is refused by its window, as with one
/// process. Clients answer a refused msg_id (−16, "too low") by sending again with a new one.
final class SessionClaims: Sendable {
    /// Seconds before a claim from which msg_ids are still accepted.
    static let slack: Int64 = 2
    /// Claims older than this are removed (one sweep a minute per process); a session whose claim is gone is taken
    /// over as if another process had served it.
    static let retention: Int32 = 3_600
    private let lastPrune = Mutex<Int32>(0)

    func claim(authKeyID: UInt64, sessionID: Int64, receivedAt: Double, server: ServerContext) async -> SessionClaim {
        let origin = server.processOrigin
        let now = server.now
        let prune = lastPrune.withLock { last in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        do {
            let previous = try await server.storage.write { tx in
                let previous = try tx.sessionClaim(authKeyID: authKeyID, sessionID: sessionID)
                try tx.claimSession(authKeyID: authKeyID, sessionID: sessionID, origin: origin, at: now)
                if prune { try tx.pruneSessionClaims(before: now - Self.retention) }
                return previous
            }
            return previous == origin ? .kept : .takenOver(floor: (Int64(receivedAt) - Self.slack) << 32)
        } catch {
            server.logger.warning("cannot claim a session", metadata: ["auth_key_id": "\(String(authKeyID, radix: 16))", "error": "\(error)"])
            return .unavailable
        }
    }
}
