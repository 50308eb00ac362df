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
