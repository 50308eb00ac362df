import MTProto
import TL

/// Executes each data center's `ConnectionKeeper`: the keeper decides (reconnect after a drop, ping, give up on a
/// silent peer), this part only opens, pings, closes and arms the keeper's next deadline. The master data center is
/// the one kept connected while `keepConnected(true)`; every open connection is pinged.
extension ConnectionManager {
    /// Keeps the master data center connected from now on (an open, logged-in account: pushes arrive only on an open
    /// connection), or stops doing so. A connection that closes or goes silent is reopened by itself, and each new
    /// connection is a new session (`sessionChanges`), after which the sync engine fetches what it missed.
    public func keepConnected(_ on: Bool) {
        keepingConnected = on
        let master = masterDC
        for dc in Set(keepers.keys).union([master]) {
            keeperEvent(dc) { $0.setWanted(on && dc == master, now: $1) }
        }
    }

    /// A connection to `dc` opened; the keeper starts pinging it and learns when it closes.
    func keeperOpened(_ dc: Int32, _ client: MTProtoClient) {
        keeperEvent(dc) { $0.connectionOpened(now: $1) }
        Task { [weak self] in
            await client.waitUntilClosed()
            await self?.keeperClosed(dc, client)
        }
    }

    /// The master moved (a migration): the old one is no longer kept open by itself, the new one is.
    func keeperMasterMoved(from old: Int32) {
        guard keepingConnected, old != masterDC else { return }
        keeperEvent(old) { $0.setWanted(false, now: $1) }
        let master = masterDC
        keeperEvent(master) { $0.setWanted(true, now: $1) }
    }

    func keeperNetworkChanged(_ available: Bool) {
        for dc in Set(keepers.keys).union([masterDC]) {
            keeperEvent(dc) { $0.setNetworkAvailable(available, now: $1) }
        }
    }

    /// Stops every keeper's timer (from `close`).
    func stopKeepers() {
        for timer in keeperTimers.values { timer.cancel() }
        keeperTimers.removeAll()
    }

    /// Whether a request would leave now: the network is available and, while the master data center is kept
    /// connected, its connection is open. The account's change log takes a change only then, so that one waiting
    /// for the network stays unsent (a later change can still replace it).
    public var isReadyToSend: Bool {
        networkAvailable && (!keepingConnected || isKeptConnected(masterDC))
    }

    /// What a connection indicator shows: as `isReadyToSend`, but while the master's connection is being reopened
    /// by a request (the keeper is not told of a close then, so that its backoff does not grow) it is `.connecting`.
    public var readiness: ConnectionReadiness {
        guard networkAvailable else { return .waitingForNetwork }
        guard keepingConnected else { return .ready }
        return isKeptConnected(masterDC) && connections[masterDC] != nil ? .ready : .connecting
    }

    /// `readiness` now and at every change: what a connection indicator shows. Each access is a new subscription.
    public nonisolated var readinessChanges: AsyncStream<ConnectionReadiness> { readinessRelay.subscribe() }

    /// Whether the keeper of `dc` holds an open connection (for tests).
    public func isKeptConnected(_ dc: Int32) -> Bool { keepers[dc]?.isConnected ?? false }

    // MARK: internals

    private func keeperClosed(_ dc: Int32, _ client: MTProtoClient) async {
        provenConnections.remove(ObjectIdentifier(client))
        guard !isClosed else { return }
        if connections[dc] === client { await drop(dc) }
        readinessRelay.update(readiness)
        guard connections[dc] == nil, opening[dc] == nil else { return }   // already replaced by a request
        keeperEvent(dc) { $0.connectionClosed(now: $1) }
    }

    /// Feeds one event to `dc`'s keeper, executes what it returns and re-arms its timer.
    func keeperEvent(_ dc: Int32, _ event: (inout ConnectionKeeper<RandomSource>, Double) -> [ConnectionKeeper<RandomSource>.Action]) {
        guard !isClosed else { return }
        var keeper = keepers[dc] ?? ConnectionKeeper(configuration: keepalive, random: environment.random)
        let actions = event(&keeper, now())
        keepers[dc] = keeper
        for action in actions { execute(action, dc: dc) }
        armKeeperTimer(dc)
        readinessRelay.update(readiness)
    }

    private func execute(_ action: ConnectionKeeper<RandomSource>.Action, dc: Int32) {
        switch action {
        case .connect:
            Task { [weak self] in
                guard let self else { return }
                do {
                    _ = try await self.connection(to: dc)
                } catch let MTProtoClientError.rpc(error) {
                    await self.keeperEvent(dc) { $0.connectFailed(now: $1, retryAfter: error.floodWaitSeconds.map(Double.init)) }
                } catch {
                    await self.keeperEvent(dc) { $0.connectFailed(now: $1) }
                }
            }
        case let .ping(id, delay):
            guard let client = connections[dc] else { return }
            Task { [weak self] in
                guard (try? await client.call(MT.functions.PingDelayDisconnect(pingId: id, disconnectDelay: delay))) != nil else { return }
                await self?.pong(dc, id: id)
            }
        case .close:
            Task { [weak self] in await self?.drop(dc) }
        }
    }

    /// A call on `client` was answered: its keeper knows the connection works (once per connection).
    func keeperAnswered(_ dc: Int32, on client: MTProtoClient) {
        guard connections[dc] === client, provenConnections.insert(ObjectIdentifier(client)).inserted else { return }
        keeperEvent(dc) { $0.connectionWorked(now: $1) }
    }

    private func pong(_ dc: Int32, id: Int64) {
        count(\.pongs)
        keeperEvent(dc) { $0.pongReceived(id: id, now: $1) }
    }

    private func armKeeperTimer(_ dc: Int32) {
        keeperTimers.removeValue(forKey: dc)?.cancel()
        guard let deadline = keepers[dc]?.nextDeadline, deadline.isFinite else { return }
        let delay = max(0, deadline - now())
        keeperTimers[dc] = Task { [weak self, environment] in
            do { try await environment.sleep(seconds: delay) } catch { return }
            await self?.keeperEvent(dc) { $0.fire(now: $1) }
        }
    }
}
