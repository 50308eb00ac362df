import MTProto
import NIOCore
import Synchronization
import TL

/// What the server pushes through to one session on one connection: update pushes are encrypted on the
/// connection's event loop by its session (server msg_ids ≡ 3 mod 4, content-related seqno).
///
/// The queue of pushes not yet written to the socket is bounded: past `queueBound` a push is dropped and, once
/// the queue has drained, the session gets one `updatesTooLong` instead (core.telegram.org/api/updates: the
/// client then calls `updates.getDifference`), so a slow reader costs bounded memory and loses nothing.
public final class SessionOutlet: Sendable {
    public let authKeyID: UInt64
    public let sessionID: Int64
    public static let queueBound = 1_024

    private let eventLoop: any EventLoop
    private let send: NIOLoopBound<(ServerConnectionHandler, ChannelHandlerContext)>
    private let state = Mutex(QueueState())
    private let closed = Atomic<Bool>(false)
    /// `invokeWithoutUpdates` seen on this session: it wants no pushes.
    private let muted = Atomic<Bool>(false)

    private struct QueueState {
        var pending = 0
        var overflowed = false
    }

    init(authKeyID: UInt64, sessionID: Int64, handler: ServerConnectionHandler, context: ChannelHandlerContext) {
        self.authKeyID = authKeyID
        self.sessionID = sessionID
        eventLoop = context.eventLoop
        send = NIOLoopBound((handler, context), eventLoop: context.eventLoop)
    }

    public var isOpen: Bool { !closed.load(ordering: .relaxed) }
    public var wantsUpdates: Bool { isOpen && !muted.load(ordering: .relaxed) }

    func markClosed() { closed.store(true, ordering: .relaxed) }
    func setMuted(_ value: Bool) { muted.store(value, ordering: .relaxed) }

    /// Pushes a serialized `Updates` object. Returns false when it was dropped (closed, muted or over the bound).
    @discardableResult
    public func push(_ body: [UInt8]) -> Bool {
        guard wantsUpdates else { return false }
        let accepted = state.withLock { state -> Bool in
            if state.pending >= Self.queueBound {
                state.overflowed = true
                return false
            }
            state.pending += 1
            return true
        }
        guard accepted else { return false }
        eventLoop.execute { [self] in write(body) }
        return true
    }

    private func write(_ body: [UInt8]) {
        let (handler, context) = send.value
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [self] _ in written() }
        guard context.channel.isActive, handler.writePush(body, promise: promise, context: context) else {
            promise.succeed(())
            return
        }
    }

    private func written() {
        let sendTooLong = state.withLock { state -> Bool in
            state.pending -= 1
            guard state.pending == 0, state.overflowed else { return false }
            state.overflowed = false
            return true
        }
        if sendTooLong { push(API.Updates.updatesTooLong(.init()).serialized()) }
    }
}
