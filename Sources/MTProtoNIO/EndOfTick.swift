import NIOCore

/// Runs a closure once at the end of the current event-loop tick, however often it is asked for during that tick:
/// the work is queued behind the tasks already waiting (a group commit resumes hundreds of calls at once), so what
/// they produce leaves together, and an idle connection still runs it at once. Event-loop bound.
final class EndOfTick {
    private var scheduled = false

    func schedule(_ context: ChannelHandlerContext, _ body: @escaping (ChannelHandlerContext) -> Void) {
        guard !scheduled else { return }
        scheduled = true
        let bound = NIOLoopBound((self, context, body), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (tick, context, body) = bound.value
            tick.scheduled = false
            body(context)
        }
    }
}

/// One flush for all the writes made during a tick: pushes to one connection leave in one `write(2)` instead of
/// one system call each.
final class FlushCoalescer {
    private let tick = EndOfTick()

    func write(_ data: NIOAny, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        context.write(data, promise: promise)
        tick.schedule(context) { $0.flush() }
    }
}

/// A first-in first-out queue that allocates nothing while empty: a connection keeps two, and NIO's `CircularBuffer`
/// reserves sixteen elements up front (several KiB per idle connection for calls). Taking from the front moves an
/// index; the storage is dropped once everything was taken.
struct LazyQueue<Element> {
    private var elements: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == elements.count }

    mutating func append(_ element: Element) { elements.append(element) }

    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if head == elements.count { (elements, head) = ([], 0) }
        return element
    }
}
