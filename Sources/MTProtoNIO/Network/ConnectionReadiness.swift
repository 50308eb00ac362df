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
    private struct State {
        var current = ConnectionReadiness.connecting
        var next = 0
        var open: [Int: AsyncStream<ConnectionReadiness>.Continuation] = [:]
        var finished = false
    }

    private let state = Mutex(State())

    func subscribe() -> AsyncStream<ConnectionReadiness> {
        let (stream, continuation) = AsyncStream<ConnectionReadiness>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> Int? in
            continuation.yield(state.current)
            guard !state.finished else { return nil }
            state.next += 1
            state.open[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.open.removeValue(forKey: id) } }
        return stream
    }

    /// Tells the subscribers when `readiness` differs from what they were told last.
    func update(_ readiness: ConnectionReadiness) {
        let open = state.withLock { state -> [AsyncStream<ConnectionReadiness>.Continuation] in
            guard state.current != readiness else { return [] }
            state.current = readiness
            return Array(state.open.values)
        }
        for continuation in open { continuation.yield(readiness) }
    }

    func finish() {
        let open = state.withLock { state in
            state.finished = true
            defer { state.open.removeAll() }
            return Array(state.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}
