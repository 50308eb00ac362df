import MTProto
import TL

/// The platform's network hooks and the end of an account's sessions.
extension ConnectionManager {
    /// The platform's reachability, passed in (a path monitor on Apple systems, netlink or a periodic probe on
    /// Linux). Unavailable: every connection is closed (a dead path would otherwise be noticed only by keepalive) and
    /// requests wait. Available again: waiting requests go at once, without sitting out a backoff.
    public func setNetworkAvailable(_ available: Bool) async {
        guard available != networkAvailable else { return }
        networkAvailable = available
        keeperNetworkChanged(available)
        if available {
            let waiters = networkWaiters
            networkWaiters.removeAll()
            for waiter in waiters.values { waiter.resume(returning: true) }
        } else {
            await dropAll()
        }
    }

    public var isNetworkAvailable: Bool { networkAvailable }

    /// Returns when the network is available; throws `networkUnavailable` after `requestTimeout` without it, and
    /// `CancellationError` when the task is cancelled.
    func waitForNetwork() async throws {
        guard routes.waitsForNetwork(network) else { return }
        let id = nextWaiterID
        nextWaiterID += 1
        let timeout = requestTimeout
        let timer = Task { [environment] in
            try? await environment.sleep(timeout)
            self.resumeWaiter(id, available: false)
        }
        defer { timer.cancel() }
        let available = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if networkAvailable { continuation.resume(returning: true) } else { networkWaiters[id] = continuation }
            }
        } onCancel: {
            Task { await self.resumeWaiter(id, available: false) }
        }
        try Task.checkCancellation()
        guard available else { throw NetworkError.networkUnavailable }
    }

    private func resumeWaiter(_ id: Int, available: Bool) {
        networkWaiters.removeValue(forKey: id)?.resume(returning: available)
    }

    /// `AUTH_KEY_DUPLICATED`: the key was used in two places at once, so no key of this account can be trusted. Every
    /// connection is closed, every key and login forgotten and persisted, and `loggedOut` says why; the next request
    /// starts a new, unauthorized key exchange.
    func logOutAfterDuplicatedKey() async {
        await dropAll()
        state.keys.removeAll()
        loginChanged()
        try? persist()
        loggedOutRelay.yield(.authKeyDuplicated)
    }

    /// `auth.logOut` on the home data center (best effort: a login the server already ended is gone either way), then
    /// every stored login is forgotten and the connection is no longer kept open. The keys stay for the next login.
    public func logOut() async {
        if state.keys[masterDC]?.userID != nil {
            // Calls racing the logout come back AUTH_KEY_UNREGISTERED: that is this logout, not a revoke elsewhere.
            loggingOut = true
            _ = try? await send(API.functions.auth.LogOut())
            loggingOut = false
        }
        forgetLogin()
        try? persist()
    }

    /// Every data center's key is no longer logged in; nothing is reopened by itself.
    func forgetLogin() {
        for dc in Array(state.keys.keys) { state.keys[dc]?.userID = nil }
        loginChanged()
        keepConnected(false)
    }
}
