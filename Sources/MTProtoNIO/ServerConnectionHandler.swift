import Logging
import MTProto
import NIOCore

/// What a server built on MTProtoNIO provides: its auth keys and its methods.
public protocol MTProtoServerDelegate: Sendable {
    /// The key if the server has it at hand (in memory): asked on the event loop, so it must not wait for anything.
    func authKey(id: UInt64) -> StoredAuthKey?
    /// Whether a key `authKey(id:)` does not have may still exist (keys in a database that other processes write to,
    /// or more than memory holds): such a key is then looked for with `loadAuthKey`; otherwise it is unknown at once.
    var looksUpKeys: Bool { get }
    /// Finds a key `authKey(id:)` did not have, off the event loop; the connection's frames wait meanwhile.
    func loadAuthKey(id: UInt64) async -> AuthKeyLookup
    /// Persists a new key; the exchange's final answer is sent only after this returns.
    func store(_ key: StoredAuthKey) async throws
    /// Whether the server runs as several processes, whose replay windows are their own: the first packet of each
    /// session on a connection then waits for `claimSession`.
    var claimsSessions: Bool { get }
    /// Records that this process serves the session now, off the event loop. `receivedAt`: the Unix time the
    /// session's first frame arrived (a floor counts back from it, not from the end of the lookups before the claim).
    func claimSession(authKeyID: UInt64, sessionID: Int64, receivedAt: Double) async -> SessionClaim
    /// Answers one call (already unwrapped from invokeWithLayer and friends). `outlet` reaches the session the call
    /// came from, for pushes later.
    func handle(_ rpc: IncomingRPC, authKeyID: UInt64, outlet: SessionOutlet) async -> Result<[UInt8], RPCError>
    /// The connection behind `outlet` closed.
    func closed(_ outlet: SessionOutlet)
    /// Several pushes queued for one session as one `Updates` (nil: send them one by one).
    func merge(_ pushes: [[UInt8]], for outlet: SessionOutlet) -> [UInt8]?
}

/// What looking a key up found.
public enum AuthKeyLookup: Sendable, Equatable {
    case found(StoredAuthKey)
    /// No such key: the client is told so (transport error −404) and makes a new one.
    case unknown
    /// The key could not be looked for (the database is unreachable): the connection is closed without −404, which
    /// would make the client drop a key that may well exist; it reconnects later.
    case unavailable
}

/// What claiming a session found.
public enum SessionClaim: Sendable, Equatable {
    /// This process served the session since it last claimed it: its replay window here is whole.
    case kept
    /// Another process may have served the session (or nobody knows): msg_ids below `floor` are refused
    /// (`ReplayWindows.takeOver`).
    case takenOver(floor: Int64)
    /// The claim could not be made (the database is unreachable): the connection is closed; the client reconnects.
    case unavailable
}

extension MTProtoServerDelegate {
    public func loadAuthKey(id: UInt64) async -> AuthKeyLookup {
        authKey(id: id).map { .found($0) } ?? .unknown
    }

    public var looksUpKeys: Bool { false }

    public var claimsSessions: Bool { false }

    public func claimSession(authKeyID: UInt64, sessionID: Int64, receivedAt: Double) async -> SessionClaim { .kept }

    public func closed(_ outlet: SessionOutlet) {}
    public func merge(_ pushes: [[UInt8]], for outlet: SessionOutlet) -> [UInt8]? { nil }
}

/// Drives a `ServerConnection` for one TCP connection: frames in, encrypted answers out, calls dispatched to the
/// delegate off the event loop and answered back on it.
///
/// Back-pressure: at most `callsInFlight` calls of the connection run at once, and none starts while the socket is
/// not writable (answers the peer has not read pass the write buffer's high-water mark). Calls beyond that wait here
/// and the socket is not read until they have started, so a peer that sends a container of a thousand calls and
/// reads nothing holds one frame of calls and a write buffer of answers, not the server.
public final class ServerConnectionHandler: ChannelInboundHandler {
    public typealias InboundIn = [UInt8]
    public typealias OutboundOut = TransportOutbound

    var connection: ServerConnection<RandomSource>
    let delegate: any MTProtoServerDelegate
    let now: @Sendable () -> Double
    let logger: Logger
    private var disconnectTimer: Scheduled<Void>?
    /// The connection is ending (`closeAfterWrites`): frames that still arrive are dropped.
    private var ending = false
    /// The outlet of the session this connection carries (a connection carries one session at a time).
    private var outlet: SessionOutlet?
    private let flusher = FlushCoalescer()
    private let answers = EndOfTick()
    private let callsInFlight: Int
    private var running = 0
    private var waiting = LazyQueue<IncomingRPC>()
    private var readingPaused = false
    /// Steps off the event loop (a key-exchange step, a key lookup): the server's per-address limiter of them, whether
    /// one runs, and the frames that arrived meanwhile (`ServerConnectionHandler+OffLoopSteps.swift`).
    let keyExchanges: KeyExchangeLimiter?
    /// The client's address the limits count (the socket's peer, or a PROXY header's); nil: the socket's peer.
    let clientAddress: ClientAddress?
    var stepRunning = false
    var framesDuringStep = LazyQueue<[UInt8]>()
    /// `ConnectionEstablished` was sent down the pipeline.
    private var toldEstablished = false

    /// Monotonic seconds (the environment's `uptime`): what the key-exchange limiter counts in.
    let uptime: @Sendable () -> Double

    /// `replayWindows`: the server's msg_ids per session, shared by its connections (nil: this connection's own).
    /// `now`: the Unix time its sessions stamp (tests fix it); `environment`: the randomness of its keys and salts and
    /// its monotonic clock.
    public init(rsaKey: RSAPrivateKey, delegate: any MTProtoServerDelegate, logger: Logger, callsInFlight: Int = 64,
                replayWindows: ReplayWindows? = nil, keyExchanges: KeyExchangeLimiter? = nil, clientAddress: ClientAddress? = nil,
                now: @escaping @Sendable () -> Double, environment: SyncEnvironment = .live) {
        self.keyExchanges = keyExchanges
        self.clientAddress = clientAddress
        uptime = environment.uptime
        self.delegate = delegate
        self.callsInFlight = max(1, callsInFlight)
        self.now = now
        self.logger = logger
        connection = ServerConnection(rsaKey: rsaKey, rng: environment.random, replayWindows: replayWindows,
                                      claimsSessions: delegate.claimsSessions) { [delegate] in
            delegate.authKey(id: $0)
        }
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ending else { return }
        receive(unwrapInboundIn(data), context: context)
    }

    /// A frame in order: behind a step that is running, to a key-exchange step when it is a plain frame, to a key
    /// lookup when it names a key the delegate does not have at hand, to the session otherwise.
    func receive(_ frame: [UInt8], context: ChannelHandlerContext) {
        let keyID = EncryptedPacket.authKeyID(of: frame)
        if stepRunning {
            framesDuringStep.append(frame)
        } else if keyID == 0 {
            runExchangeStep(frame, context: context)
        } else if delegate.looksUpKeys, let keyID, keyID != connection.authKeyID, delegate.authKey(id: keyID) == nil {
            runKeyLookup(keyID, frame: frame, context: context)
        } else {
            let now = now()
            proceed(connection.receive(frame, now: now), frame: frame, receivedAt: now, context: context)
        }
    }

    /// Performs what the connection asked for `frame` (received at `receivedAt`), or claims the session first when it
    /// asked for that.
    func proceed(_ actions: [ServerConnectionAction], frame: [UInt8], receivedAt: Double, context: ChannelHandlerContext) {
        if case let .claimSession(session)? = actions.first {
            runSessionClaim(session, frame: frame, receivedAt: receivedAt, context: context)
        } else {
            perform(actions, context: context)
        }
    }

    public func channelInactive(context: ChannelHandlerContext) {
        disconnectTimer?.cancel()
        if let outlet {
            outlet.markClosed()
            delegate.closed(outlet)
        }
        context.fireChannelInactive()
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("closing connection", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    /// Ends the connection so that what was written reaches the peer (a transport error: −404 for an unknown key): the
    /// output is shut (FIN) and the connection closed when the peer closes, or after 2 s. Closing at once while the
    /// peer's later bytes sit unread makes the kernel answer with RST, and a peer that had not read the error yet loses
    /// it (seen as a plain disconnect under load).
    private func closeAfterWrites(context: ChannelHandlerContext) {
        ending = true
        context.flush()
        let channel = context.channel
        disconnectTimer?.cancel()
        disconnectTimer = context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        let shut = context.eventLoop.makePromise(of: Void.self)
        shut.futureResult.whenFailure { _ in channel.close(promise: nil) }   // a channel that cannot half-close
        context.close(mode: .output, promise: shut)
    }

    func perform(_ actions: [ServerConnectionAction], context: ChannelHandlerContext) {
        for action in actions {
            switch action {
            case .storeKey:
                // Keys are made only by exchange steps, which store them off the loop before anything else is done.
                logger.error("a new auth key outside an exchange step; closing the connection")
                context.close(promise: nil)
                return
            case let .send(payload):
                context.write(wrapOutboundOut(.payload(payload)), promise: nil)
            case let .sendTransportError(code):
                context.write(wrapOutboundOut(.transportError(code)), promise: nil)
            case .close:
                closeAfterWrites(context: context)
                return
            case let .invoke(rpc):
                waiting.append(rpc)
                startWaitingCalls(context: context)
            case .claimSession:
                logger.error("a session claim outside a received frame; closing the connection")
                context.close(promise: nil)
                return
            case let .disconnectAfter(seconds):
                disconnectTimer?.cancel()
                let channel = context.channel
                disconnectTimer = context.eventLoop.scheduleTask(in: .seconds(Int64(seconds))) { channel.close(promise: nil) }
            }
        }
        if !toldEstablished, connection.authKeyID != nil {
            toldEstablished = true
            context.triggerUserOutboundEvent(ConnectionEstablished(), promise: nil)
        }
        context.flush()
    }

    /// Encrypts a push on this connection's session and writes it (false before a session exists).
    /// Encrypts several pushes on this connection's session, in containers, and writes them; `promise` completes with
    /// the last packet (false before a session exists).
    func writePushes(_ bodies: [[UInt8]], promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) -> Bool {
        guard let packets = connection.push(bodies, now: now()), !packets.isEmpty else { return false }
        for (index, packet) in packets.enumerated() {
            flusher.write(wrapOutboundOut(.payload(packet)), promise: index == packets.count - 1 ? promise : nil, context: context)
        }
        return true
    }

    func writePush(_ body: [UInt8], promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) -> Bool {
        guard let packet = connection.push(body, now: now()) else { return false }
        flusher.write(wrapOutboundOut(.payload(packet)), promise: promise, context: context)
        return true
    }

    private func outlet(for rpc: IncomingRPC, keyID: UInt64, context: ChannelHandlerContext) -> SessionOutlet {
        if let outlet, outlet.sessionID == rpc.sessionID, outlet.authKeyID == keyID {
            outlet.setMuted(rpc.withoutUpdates)
            return outlet
        }
        if let old = outlet {
            old.markClosed()
            delegate.closed(old)
        }
        let fresh = SessionOutlet(authKeyID: keyID, sessionID: rpc.sessionID, handler: self, context: context) { [delegate] in
            delegate.merge($0, for: $1)
        }
        fresh.setMuted(rpc.withoutUpdates)
        outlet = fresh
        return fresh
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        startWaitingCalls(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Starts waiting calls while there is room, and reads the socket only when none is left waiting.
    private func startWaitingCalls(context: ChannelHandlerContext) {
        while running < callsInFlight, context.channel.isWritable, let rpc = waiting.popFirst() {
            guard let keyID = connection.authKeyID else { continue }
            running += 1
            dispatch(rpc, keyID: keyID, context: context)
        }
        updateReading(context: context)
    }

    /// The socket is not read while calls wait for room or a step runs off the loop.
    func updateReading(context: ChannelHandlerContext) {
        let pause = !waiting.isEmpty || stepRunning
        guard pause != readingPaused else { return }
        readingPaused = pause
        try? context.channel.syncOptions?.setOption(.autoRead, value: !pause)
        if !pause { context.read() }
    }

    private func dispatch(_ rpc: IncomingRPC, keyID: UInt64, context: ChannelHandlerContext) {
        let outlet = outlet(for: rpc, keyID: keyID, context: context)
        let delegate = self.delegate
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let handle: @Sendable () async -> Void = {
            let result = await delegate.handle(rpc, authKeyID: keyID, outlet: outlet)
            eventLoop.execute {
                let (handler, context) = loopBound.value
                handler.running -= 1
                guard context.channel.isActive else { return }
                if handler.connection.queueResponse(to: rpc, result: result) { handler.scheduleAnswers(context: context) }
                handler.startWaitingCalls(context: context)
            }
        }
        eventLoop.startTask(handle)   // the call starts without waking another thread, and its answer is queued there
    }

    /// Answers queued during one tick leave together at its end, several per container (a group commit releases
    /// hundreds of calls at once).
    private func scheduleAnswers(context: ChannelHandlerContext) {
        answers.schedule(context) { [self] context in
            guard context.channel.isActive else { return }
            for packet in connection.sealQueued(now: now()) { context.write(wrapOutboundOut(.payload(packet)), promise: nil) }
            context.flush()
        }
    }
}
