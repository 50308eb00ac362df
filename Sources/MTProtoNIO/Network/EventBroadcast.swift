import Synchronization

/// One producer, any number of consumers: each `subscribe()` gets its own stream of what is emitted from then on
/// (an `AsyncStream` alone hands each element to only one of its iterators).
package final class EventBroadcast<Element: Sendable>: Sendable {
    private struct Subscribers {
        var next = 0
        var open: [Int: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }

    private let subscribers = Mutex(Subscribers())

    package init() {}

    /// A stream of what is emitted from now on, after `first` when given; `newest` keeps only the last that many
    /// for a slow consumer (unbounded when nil).
    package func subscribe(startingWith first: Element? = nil, keepingNewest newest: Int? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: newest.map { .bufferingNewest($0) } ?? .unbounded)
        if let first { continuation.yield(first) }
        let id = subscribers.withLock { subscribers -> Int? in
            guard !subscribers.finished else { return nil }
            subscribers.next += 1
            subscribers.open[subscribers.next] = continuation
            return subscribers.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.open.removeValue(forKey: id) } }
        return stream
    }

    package func yield(_ element: Element) {
        for continuation in subscribers.withLock({ Array($0.open.values) }) { continuation.yield(element) }
    }

    package func finish() {
        let open = subscribers.withLock { subscribers in
            subscribers.finished = true
            defer { subscribers.open.removeAll() }
            return Array(subscribers.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}
