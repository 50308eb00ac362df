import Synchronization

/// Authorizations exported by `auth.exportAuthorization` for another DC (core.telegram.org/api/datacenter#authorization-transfer):
/// a random token bound to the user and the target DC, valid once and for `lifetime` seconds. Kept in memory,
/// so an export and its import must reach the same server process.
final class AuthorizationTransfers: Sendable {
    private struct Pending {
        let user: Int64
        let dc: Int32
        let expires: Int32
    }

    static let lifetime: Int32 = 300
    private let pending = Mutex<[[UInt8]: Pending]>([:])

    func export(user: Int64, to dc: Int32, token: [UInt8], now: Int32) {
        pending.withLock { pending in
            pending = pending.filter { $0.value.expires > now }
            pending[token] = Pending(user: user, dc: dc, expires: now + Self.lifetime)
        }
    }

    /// The user the token was exported for, if it was for `dc`, for `user`, and not used or expired (consumed here).
    func redeem(token: [UInt8], user: Int64, at dc: Int32, now: Int32) -> Bool {
        pending.withLock { pending in
            guard let entry = pending[token], entry.user == user, entry.dc == dc, entry.expires > now else { return false }
            pending[token] = nil
            return true
        }
    }
}
