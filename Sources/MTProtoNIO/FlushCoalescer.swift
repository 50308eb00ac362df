import NIOCore

/// One flush for all the writes that event-loop tasks queued together make: answers released together (a group
/// commit resumes hundreds of calls at once) and pushes to one connection leave in one `write(2)` instead of one
/// system call each. The flush is queued behind the tasks already waiting, so an idle connection flushes at once.
/// Event-loop bound: used only from its channel's event loop.
final class FlushCoalescer {
    private var scheduled = false

    func write(_ data: NIOAny, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        context.write(data, promise: promise)
        guard !scheduled else { return }
        scheduled = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (coalescer, context) = bound.value
            coalescer.scheduled = false
            context.flush()
        }
    }
}
