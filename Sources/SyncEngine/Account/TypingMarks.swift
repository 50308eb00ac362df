import Postbox
import Synchronization

/// Who is doing what in which chat now, as a chat's header and the chat list show it (TDLib's `updateChatAction`
/// with its expiry done for the app). A mark stands for `Typing.lifetime` seconds unless repeated; it ends earlier
/// at the user's `.cancel` or when a message of theirs arrives in that chat. No I/O: times are given.
public struct TypingMarks: Equatable, Sendable {
    struct Mark: Equatable, Sendable {
        var action: ChatAction
        var expires: Double
    }

    private(set) var marks: [PeerID: [Int64: Mark]] = [:]
    let lifetime: Double

    public init(lifetime: Double = Typing.lifetime) {
        self.lifetime = lifetime
    }

    /// Chat → user → action, the marks standing now.
    public var current: [PeerID: [Int64: ChatAction]] { marks.mapValues { $0.mapValues(\.action) } }

    /// When the next mark ends (nil: none stands).
    public var nextDeadline: Double? { marks.values.flatMap(\.values).map(\.expires).min() }

    /// A typing update; true when what stands changed.
    public mutating func apply(_ typing: Typing, now: Double) -> Bool {
        let action = typing.activity
        guard action != .cancel else { return remove(typing.user, in: typing.chat) }
        let before = marks[typing.chat]?[typing.user]?.action
        marks[typing.chat, default: [:]][typing.user] = Mark(action: action, expires: now + lifetime)
        return before != action
    }

    /// A message of `user` arrived in `chat`: what they were doing there is done.
    public mutating func messageArrived(from user: Int64, in chat: PeerID) -> Bool { remove(user, in: chat) }

    /// Ends the marks whose time is up; true when any did.
    public mutating func expire(now: Double) -> Bool {
        var changed = false
        for (chat, users) in marks {
            let left = users.filter { $0.value.expires > now }
            guard left.count != users.count else { continue }
            marks[chat] = left.isEmpty ? nil : left
            changed = true
        }
        return changed
    }

    /// An account event: typing, or a message that ends its author's mark.
    mutating func apply(_ event: AccountEvent, now: Double) -> Bool {
        if let typing = event.typing { return apply(typing, now: now) }
        if let message = event.newMessage, let author = message.author, author.namespace == StoreMapping.userNamespace {
            return messageArrived(from: author.id, in: message.id.peer)
        }
        return false
    }

    private mutating func remove(_ user: Int64, in chat: PeerID) -> Bool {
        guard marks[chat]?.removeValue(forKey: user) != nil else { return false }
        if marks[chat]?.isEmpty == true { marks[chat] = nil }
        return true
    }
}

extension Account {
    /// The typing marks standing now, yielded whole at each change: a new mark, a `.cancel`, the user's message, or a
    /// mark's time running out (`TypingMarks`). Idle with no mark standing, it waits without waking.
    public nonisolated func typingMarks(lifetime: Double = Typing.lifetime) -> AsyncStream<[PeerID: [Int64: ChatAction]]> {
        let (events, environment) = (self.events, network.environment)
        let (output, continuation) = AsyncStream<[PeerID: [Int64: ChatAction]]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (wake, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let marks = Shared(TypingMarks(lifetime: lifetime))
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in events {
                        let changed = marks.withLock { $0.apply(event, now: environment.uptime()) ? $0.current : nil }
                        if let changed {
                            continuation.yield(changed)
                            waker.yield()
                        }
                    }
                    continuation.finish()
                }
                group.addTask {
                    var wakes = wake.makeAsyncIterator()
                    while !Task.isCancelled {
                        guard let deadline = marks.withLock({ $0.nextDeadline }) else {
                            guard await wakes.next() != nil else { return }
                            continue
                        }
                        try? await environment.sleep(seconds: max(0, deadline - environment.uptime()))
                        let changed = marks.withLock { $0.expire(now: environment.uptime()) ? $0.current : nil }
                        if let changed { continuation.yield(changed) }
                    }
                }
                await group.next()   // the events ended: so does the timer
                group.cancelAll()
                waker.finish()
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return output
    }
}

/// A value several tasks read and change under one lock.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        value.withLock { body(&$0) }
    }
}
