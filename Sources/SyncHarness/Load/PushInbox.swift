import Synchronization
import TL

/// Every new message pushed to a `TestClient`, with its pts, collected in the background (the multi-process tests
/// and benchmarks); `updatesTooLong` is counted, since a test that expects every push must see none.
public final class PushInbox: Sendable {
    public struct Received: Sendable, Equatable {
        public let pts: Int32
        public let text: String
    }

    private let state = Mutex<(messages: [Received], tooLong: Int)>(([], 0))
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    public init(_ client: TestClient) {
        let listening = Task { [self] in
            while let push = try? await client.nextPush() {
                let received = Self.newMessages(in: push)
                let tooLong = if case .updatesTooLong = push { 1 } else { 0 }
                state.withLock { state in
                    state.messages += received
                    state.tooLong += tooLong
                }
            }
        }
        task.withLock { $0 = listening }
    }

    public var messages: [Received] { state.withLock { $0.messages } }
    public var count: Int { state.withLock { $0.messages.count } }
    public var tooLongCount: Int { state.withLock { $0.tooLong } }

    /// Waits until `count` messages arrived or `seconds` passed; returns whether they arrived.
    public func wait(for count: Int, seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while self.count < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// The new private messages a push carries, in any of the forms a server sends them.
    public static func newMessages(in push: API.Updates) -> [Received] {
        let updates: [API.Update]
        switch push {
        case let .updateShortMessage(message): return [Received(pts: message.pts, text: message.message)]
        case let .updates(value): updates = value.updates
        case let .updatesCombined(value): updates = value.updates
        default: return []
        }
        return updates.compactMap { update in
            guard case let .updateNewMessage(value) = update, case let .message(message) = value.message else { return nil }
            return Received(pts: value.pts, text: message.message)
        }
    }
}
