import Foundation
import MTProto
import Synchronization

/// A clock that moves only when told: unix seconds for `now`, and sleepers that wake when `advance` moves time past
/// their deadline. The deterministic simulation runs on one; tests of a rule that has a clock (a backoff, a date the
/// server hands out) use one through ``environment`` instead of waiting on real time, and wait for the component to
/// go to sleep (``sleepers``) before moving time.
public final class VirtualClock: Sendable {
    private struct Sleeper {
        let id: UInt64
        let deadline: Double
        let wake: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Double
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        /// Sleeps cancelled before they registered.
        var cancelled: Set<UInt64> = []
    }

    private let state: Mutex<State>
    /// Where the clock started (its uptime's origin).
    public let start: Double

    public init(start: Double = 1_800_000_000) {
        self.start = start
        state = Mutex(State(now: start))
    }

    public var now: Double { state.withLock { $0.now } }
    /// How many sleeps wait for time to move.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }
    /// The earliest wake-up a sleeper waits for.
    public var nextWakeUp: Double? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    /// Moves time forward and wakes every sleeper whose deadline it reached.
    public func advance(by seconds: Double) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += seconds
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.wake.resume() }
    }

    /// Moves time to the next wake-up (if any) and wakes who waited for it; returns whether there was one.
    @discardableResult
    public func advanceToNextWakeUp() -> Bool {
        guard let next = nextWakeUp else { return false }
        advance(by: max(0, next - now))
        return true
    }

    /// Returns once `advance` has moved time `duration` past now; throws when the task is cancelled.
    public func sleep(_ duration: Duration) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (wake: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    guard duration > .zero else { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now + duration.seconds, wake: wake))
                    return nil
                }
                if let outcome { wake.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.wake.resume(throwing: CancellationError())
        }
    }

    /// The system's randomness with this clock's time and waiting.
    public var environment: SyncEnvironment {
        SyncEnvironment.live.on(self)
    }
}

extension SyncEnvironment {
    /// This environment's randomness with `clock`'s time and waiting.
    public func on(_ clock: VirtualClock) -> SyncEnvironment {
        SyncEnvironment(now: { clock.now }, uptime: { clock.now - clock.start }, random: random, sleep: { try await clock.sleep($0) })
    }
}
