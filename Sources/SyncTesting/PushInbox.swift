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
                var received: [Received] = []
                var tooLong = 0
                Self.collect(push, into: &received, tooLong: &tooLong)
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

    private static func collect(_ push: API.Updates, into received: inout [Received], tooLong: inout Int) {
        switch push {
        case let .updateShortMessage(message):
            received.append(Received(pts: message.pts, text: message.message))
        case let .updates(value):
            collect(value.updates, into: &received)
        case let .updatesCombined(value):
            collect(value.updates, into: &received)
        case .updatesTooLong:
            tooLong += 1
        default:
            break
        }
    }

    private static func collect(_ updates: [API.Update], into received: inout [Received]) {
        for case let .updateNewMessage(update) in updates {
            if case let .message(message) = update.message { received.append(Received(pts: update.pts, text: message.message)) }
        }
    }
}
