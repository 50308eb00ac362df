import MTProtoNIO
import Synchronization

/// The online sessions of each logged-in user: where pushes go. A session is attached by its first call after
/// login and detached when its connection closes.
final class SessionRegistry: Sendable {
    private struct State {
        var byUser: [Int64: [ObjectIdentifier: SessionOutlet]] = [:]
        var userOf: [ObjectIdentifier: Int64] = [:]
    }

    private let state = Mutex(State())

    func attach(_ outlet: SessionOutlet, user: Int64) {
        let id = ObjectIdentifier(outlet)
        state.withLock { state in
            if let previous = state.userOf[id] {
                guard previous != user else { return }
                state.byUser[previous]?[id] = nil
            }
            state.userOf[id] = user
            state.byUser[user, default: [:]][id] = outlet
            ServerMetrics.sessions(state.userOf.count)
        }
    }

    func detach(_ outlet: SessionOutlet) {
        let id = ObjectIdentifier(outlet)
        state.withLock { state in
            guard let user = state.userOf.removeValue(forKey: id) else { return }
            state.byUser[user]?[id] = nil
            if state.byUser[user]?.isEmpty == true { state.byUser[user] = nil }
            ServerMetrics.sessions(state.userOf.count)
        }
    }

    /// Detaches every session of an auth key (it was logged out): no push reaches any of them again.
    @discardableResult
    func detachAll(authKeyID: UInt64) -> [SessionOutlet] {
        state.withLock { state in
            var detached: [SessionOutlet] = []
            for (user, outlets) in state.byUser {
                for (id, outlet) in outlets where outlet.authKeyID == authKeyID {
                    state.userOf[id] = nil
                    state.byUser[user]?[id] = nil
                    detached.append(outlet)
                }
                if state.byUser[user]?.isEmpty == true { state.byUser[user] = nil }
            }
            ServerMetrics.sessions(state.userOf.count)
            return detached
        }
    }

    /// The sessions of `user` that want pushes, except `excluded` (the session that made the request).
    func outlets(of user: Int64, except excluded: SessionOutlet?) -> [SessionOutlet] {
        state.withLock { state in
            (state.byUser[user]?.values).map { outlets in
                outlets.filter { $0 !== excluded && $0.wantsUpdates }
            } ?? []
        }
    }

    /// Whether any session of `user` is attached here.
    func hasSessions(_ user: Int64) -> Bool {
        state.withLock { $0.byUser[user] != nil }
    }

    /// The user a session is attached to.
    func user(of outlet: SessionOutlet) -> Int64? {
        state.withLock { $0.userOf[ObjectIdentifier(outlet)] }
    }

    var count: Int { state.withLock { $0.userOf.count } }
}
