import Synchronization

/// What an app's connection indicator shows (TDLib's `connectionState`): whether a request would leave now, and if
/// not, why. It follows the master data center's kept connection (`ConnectionManager.keepConnected`).
public enum ConnectionReadiness: Equatable, Sendable {
    /// The platform reported no network (`ConnectionManager.setNetworkAvailable(false)`).
    case waitingForNetwork
    /// The master data center's connection is being (re)opened: the server is unreachable or just went away.
    case connecting
    /// Requests leave at once.
    case ready
}

/// The current readiness to every subscriber: each new stream starts with the current value, then gets every change
/// (only the newest is kept for a slow consumer: an indicator wants the present, not the history).
final class ReadinessRelay: Sendable {
    private let current = Mutex(ConnectionReadiness.connecting)
    private let broadcast = EventBroadcast<ConnectionReadiness>()

    func subscribe() -> AsyncStream<ConnectionReadiness> {
        broadcast.subscribe(startingWith: current.withLock { $0 }, keepingNewest: 1)
    }

    /// Tells the subscribers when `readiness` differs from what they were told last.
    func update(_ readiness: ConnectionReadiness) {
        let changed = current.withLock { current in
            defer { current = readiness }
            return current != readiness
        }
        if changed { broadcast.yield(readiness) }
    }

    func finish() { broadcast.finish() }
}
