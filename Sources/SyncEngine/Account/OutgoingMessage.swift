import Postbox
import Synchronization

/// A message `Account.send` queued, as TDLib gives an outgoing message its sending state: the local copy, shown at
/// once, and the state its send reaches: pending until the server answers, then sent (the server's message, stored in
/// place of the local copy) or failed (Telegram's name for the refusal; the local copy stays, marked failed).
///
/// The state follows the account's `sendSucceeded` / `sendFailed` events from a subscription made before the send was
/// queued, so no outcome is missed. Only the syncing process performs sends and emits those events: in a process that
/// follows another (`Account.isMaster` false) and for a send still queued when the account closes, `sent()` ends with
/// `Failure.unresolved` (the send itself stays queued and goes when the syncing process can send it).
public final class OutgoingMessage: Sendable {
    /// Where the send is.
    public enum State: Equatable, Sendable {
        case pending
        /// The server took it; its message (nil when the server's answer did not name it).
        case sent(MessageID?)
        /// Refused for good, with the error's name (`PEER_ID_INVALID`, `CHAT_WRITE_FORBIDDEN`, …).
        case failed(String)
    }

    public enum Failure: Error, Equatable, Sendable {
        /// The server refused the message (the error's name).
        case refused(String)
        /// This handle cannot learn the outcome: the account closed, or this process does not sync.
        case unresolved
        /// The task waiting in `sent()` was cancelled.
        case cancelled
    }

    /// The local copy (namespace `OutboxEntry.localMessages`), what views show until the server's copy replaces it.
    public let local: MessageID
    private let tracker: Tracker
    private let watcher: Task<Void, Never>

    init(local: MessageID, events: AsyncStream<AccountEvent>, follows: Bool) {
        self.local = local
        let tracker = Tracker()
        self.tracker = tracker
        watcher = Task {
            if !follows {
                for await event in events {
                    switch event {
                    case let .sendSucceeded(id, server) where id == local: return tracker.settle(.sent(server))
                    case let .sendFailed(id, error) where id == local: return tracker.settle(.failed(error))
                    default: continue
                    }
                }
            }
            tracker.settle(nil)   // the events ended (or never come here) before the outcome
        }
    }

    deinit { watcher.cancel() }

    /// The state now.
    public var state: State { tracker.state.withLock(\.state) }

    /// Waits for the server's answer: the server's message, or `Failure.refused` with Telegram's error.
    /// Waiting ends with `Failure.cancelled` when the waiting task is cancelled (the send goes on).
    public func sent() async throws(Failure) -> MessageID? {
        switch await tracker.settled() {
        case let .sent(server)?: return server
        case let .failed(error)?: throw .refused(error)
        case .pending?: throw .unresolved
        case nil: throw .cancelled
        }
    }

    /// The state and who waits for it to leave `pending`.
    final class Tracker: Sendable {
        struct Shared {
            var state = State.pending
            var ended = false
            var nextWaiter = 0
            var waiters: [Int: CheckedContinuation<State?, Never>] = [:]
        }

        let state = Mutex(Shared())

        /// Records the outcome (nil: none will come) and wakes the waiters.
        func settle(_ outcome: State?) {
            let (waiters, state) = state.withLock { shared in
                if let outcome { shared.state = outcome }
                shared.ended = true
                defer { shared.waiters.removeAll() }
                return (Array(shared.waiters.values), shared.state)
            }
            for waiter in waiters { waiter.resume(returning: state) }
        }

        /// The settled state; nil when the waiting task was cancelled first.
        func settled() async -> State? {
            let id = state.withLock { shared in
                defer { shared.nextWaiter += 1 }
                return shared.nextWaiter
            }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { shared -> State?? in
                        if shared.ended { return .some(shared.state) }
                        if Task.isCancelled { return .some(nil) }
                        shared.waiters[id] = continuation
                        return .none
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
            }
        }
    }
}
