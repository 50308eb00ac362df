import MTProto
import NIOCore
import Synchronization
import TL

/// What the server pushes through to one session on one connection: update pushes are encrypted on the
/// connection's event loop by its session (server msg_ids ≡ 3 mod 4, content-related seqno).
///
/// Pushes wait in a queue while the previous one is being written; what piled up meanwhile leaves together, merged
/// by the server's `merge` (into one `updatesCombined`, core.telegram.org/api/updates) when it can, so a busy
/// session gets fewer, larger packets — at most `mergeLimit` pushes and `mergeBytes` bytes in one, so a merged push
/// is never an object too large to frame. The queue is bounded in count and bytes: past `queueBound` or
/// `queueBytes` it is replaced by one `updatesTooLong` (the client then calls `updates.getDifference` and loses
/// nothing) and pushes are dropped until that has been written, so a slow reader costs bounded memory.
public final class SessionOutlet: Sendable {
    public let authKeyID: UInt64
    public let sessionID: Int64
    public static let queueBound = 1_024
    private static let tooLong = API.Updates.updatesTooLong(.init()).serialized()
    /// Pushes merged into one packet at most, and their bytes (a single larger push still goes, alone).
    public static let mergeLimit = 64
    public static let mergeBytes = 256 * 1024
    /// Bytes a session's queue may hold before it becomes `updatesTooLong`.
    public static let queueBytes = 4 << 20

    /// Merges several serialized `Updates` into one, or nil to send them one by one.
    public typealias Merge = @Sendable (_ bodies: [[UInt8]], _ outlet: SessionOutlet) -> [UInt8]?

    private let transport: Transport
    private let merge: Merge
    private let state = Mutex(QueueState())
    private let closed = Atomic<Bool>(false)
    /// `invokeWithoutUpdates` seen on this session: it wants no pushes.
    private let muted = Atomic<Bool>(false)

    /// Where pushes go: a connection's channel, written on its event loop, or a function called at once (a server
    /// in the same process, `LocalServer`, with no connection).
    private enum Transport: Sendable {
        case connection(any EventLoop, NIOLoopBound<(ServerConnectionHandler, ChannelHandlerContext)>)
        case sink(@Sendable ([UInt8]) -> Void, close: @Sendable () -> Void)
    }

    private struct QueueState {
        var queue: [[UInt8]] = []
        var queuedBytes = 0
        /// A drain is scheduled or its write is in flight.
        var writing = false
        /// The queue overflowed and holds `updatesTooLong` (or it is being written): new pushes are dropped.
        var overflowed = false
    }

    init(authKeyID: UInt64, sessionID: Int64, handler: ServerConnectionHandler, context: ChannelHandlerContext, merge: @escaping Merge) {
        self.authKeyID = authKeyID
        self.sessionID = sessionID
        self.merge = merge
        transport = .connection(context.eventLoop, NIOLoopBound((handler, context), eventLoop: context.eventLoop))
    }

    /// A session with no connection: each push (merged with what queued meanwhile) is handed to `sink` on the
    /// pushing thread before `push` returns; `close` is called where a connection would be closed.
    public init(authKeyID: UInt64, sessionID: Int64, merge: @escaping Merge, sink: @escaping @Sendable ([UInt8]) -> Void,
                close: @escaping @Sendable () -> Void = {}) {
        self.authKeyID = authKeyID
        self.sessionID = sessionID
        self.merge = merge
        transport = .sink(sink, close: close)
    }

    public var isOpen: Bool { !closed.load(ordering: .relaxed) }
    public var wantsUpdates: Bool { isOpen && !muted.load(ordering: .relaxed) }

    func markClosed() { closed.store(true, ordering: .relaxed) }

    /// Closes the connection this session lives on (its login ended: the client reconnects and learns it from the
    /// `AUTH_KEY_UNREGISTERED` of its next call, instead of waiting for pushes that no longer come).
    public func closeConnection() {
        switch transport {
        case let .connection(eventLoop, send): eventLoop.execute { send.value.1.close(promise: nil) }
        case let .sink(_, close): close()
        }
    }
    func setMuted(_ value: Bool) { muted.store(value, ordering: .relaxed) }

    /// Queues a serialized `Updates` object. Returns false when it was dropped (closed, muted or over the bound).
    @discardableResult
    public func push(_ body: [UInt8]) -> Bool {
        guard wantsUpdates else { return false }
        let (accepted, startsDrain) = state.withLock { state -> (Bool, Bool) in
            if state.overflowed { return (false, false) }
            if state.queue.count >= Self.queueBound || state.queuedBytes + body.count > Self.queueBytes {
                state.queue = [Self.tooLong]
                state.queuedBytes = Self.tooLong.count
                state.overflowed = true
                return (false, false)
            }
            state.queue.append(body)
            state.queuedBytes += body.count
            guard !state.writing else { return (true, false) }
            state.writing = true
            return (true, true)
        }
        guard startsDrain else { return accepted }
        switch transport {
        case let .connection(eventLoop, _): eventLoop.execute { [self] in drain() }
        case .sink: drain()
        }
        return accepted
    }

    /// Writes what is queued (merged when it can be) and comes back when that write completes.
    private func drain() {
        let batch = state.withLock { state -> [[UInt8]] in
            var (count, bytes) = (0, 0)
            for body in state.queue.prefix(Self.mergeLimit) {
                guard count == 0 || bytes + body.count <= Self.mergeBytes else { break }
                (count, bytes) = (count + 1, bytes + body.count)
            }
            let batch = Array(state.queue.prefix(count))
            state.queue.removeFirst(count)
            state.queuedBytes -= bytes
            if batch.isEmpty { state.writing = false }
            return batch
        }
        guard !batch.isEmpty else { return }
        let bodies = batch.count > 1 ? merge(batch, self).map { [$0] } ?? batch : batch
        guard case let .connection(_, send) = transport else {
            if case let .sink(sink, _) = transport { bodies.forEach(sink) }
            return written(batch)
        }
        let (handler, context) = send.value
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [self] _ in written(batch) }
        guard context.channel.isActive else { return promise.succeed(()) }
        // What could not be merged into one `Updates` still leaves together: one container per packet's worth.
        if bodies.count == 1 {
            if !handler.writePush(bodies[0], promise: promise, context: context) { promise.succeed(()) }
        } else if !handler.writePushes(bodies, promise: promise, context: context) {
            promise.succeed(())
        }
    }

    private func written(_ batch: [[UInt8]]) {
        if batch.count == 1, batch[0] == Self.tooLong {
            state.withLock { $0.overflowed = false }
        }
        drain()
    }
}
