import MTProto
import NIOCore

/// Why a client connection failed.
public enum MTProtoClientError: Error, Sendable {
    case handshake(HandshakeError)
    case rpc(RPCError)
    /// The server refused the call at the protocol level (`bad_msg_notification` code).
    case rejected(code: Int32)
    /// The server sent a transport error (−404: unknown auth key, −429: flood, −444: wrong DC).
    case transport(Int32)
    case connectionClosed
    case decoding(String)
    /// No answer (or no completed key exchange) within the deadline.
    case timedOut
}

/// Drives the client cores on one connection: the auth-key exchange (unless a key is given), then an encrypted
/// session whose calls are answered through promises.
///
/// Calls made during one event-loop tick leave together in one packet (a `msg_container`), with the
/// acknowledgements the session owes; owed acknowledgements with no call to ride on are sent after
/// `acknowledgementDelay`, or at once when `acknowledgementBatch` of them are waiting.
final class ClientConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = [UInt8]
    typealias OutboundOut = TransportOutbound

    private enum State {
        case handshaking(ClientAuthKeyExchange<RandomSource>)
        case ready(ClientSession<RandomSource>)
        case failed(MTProtoClientError)
    }

    private var state: State
    /// Padding, msg_id low bits, key material: the client side's environment.
    private let random: RandomSource
    private var messageIDs = MessageIDGenerator()
    private let ready: EventLoopPromise<AuthKeyExchangeResult>
    private var calls: [Int: EventLoopPromise<[UInt8]>] = [:]
    private let now: @Sendable () -> Double
    private var knownKey: AuthKeyExchangeResult?
    /// Calls waiting for the end of the tick.
    private var queuedCalls: [(body: [UInt8], promise: EventLoopPromise<[UInt8]>)] = []
    private let sending = EndOfTick()
    private var acknowledgementTimer: Scheduled<Void>?
    static let acknowledgementDelay = TimeAmount.milliseconds(50)
    static let acknowledgementBatch = 32
    /// This handler's context while it is in a pipeline, so calls need no pipeline search.
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }
    /// Server-initiated objects (update pushes), for whoever listens.
    var onUpdate: (([UInt8]) -> Void)?

    init(publicKeys: [RSAPublicKey], dc: Int32, existingKey: AuthKeyExchangeResult?,
         ready: EventLoopPromise<AuthKeyExchangeResult>, environment: SyncEnvironment) {
        self.ready = ready
        self.now = environment.now
        random = environment.random
        knownKey = existingKey
        if let existingKey {
            state = .ready(ClientSession(authKey: existingKey.authKey, salt: existingKey.serverSalt,
                                         timeOffset: Double(existingKey.serverTimeOffset), rng: environment.random))
        } else {
            state = .handshaking(ClientAuthKeyExchange(publicKeys: publicKeys, dc: dc, rng: environment.random))
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        switch state {
        case var .handshaking(exchange):
            let body = exchange.start()
            state = .handshaking(exchange)
            context.writeAndFlush(wrapOutboundOut(.payload(PlainMessage.encode(messageID: messageIDs.next(.client, now: now()), body: body))),
                                  promise: nil)
        case .ready:
            if let knownKey { ready.succeed(knownKey) }
        case .failed:
            break
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if frame.count == 4 {
            let code = Int32(littleEndian: frame.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) })
            fail(.transport(code), context: context)
            return
        }
        switch state {
        case var .handshaking(exchange):
            do {
                let message = try PlainMessage.decode(frame)
                switch try exchange.receive(message.body, now: Int32(clamping: Int64(now()))) {
                case let .send(body):
                    state = .handshaking(exchange)
                    context.writeAndFlush(wrapOutboundOut(.payload(PlainMessage.encode(messageID: messageIDs.next(.client, now: now()), body: body))),
                                          promise: nil)
                case let .completed(result):
                    knownKey = result
                    state = .ready(ClientSession(authKey: result.authKey, salt: result.serverSalt,
                                                 timeOffset: Double(result.serverTimeOffset), rng: random))
                    ready.succeed(result)
                }
            } catch let error as HandshakeError {
                fail(.handshake(error), context: context)
            } catch {
                fail(.decoding("\(error)"), context: context)
            }
        case var .ready(session):
            state = .failed(.connectionClosed)   // moved out so the mutation below does not copy its buffers
            let events = session.receive(frame, now: now())
            state = .ready(session)
            for event in events {
                switch event {
                case let .send(packet): context.write(wrapOutboundOut(.payload(packet)), promise: nil)
                case let .result(token, .success(bytes)): calls.removeValue(forKey: token)?.succeed(bytes)
                case let .result(token, .failure(error)): calls.removeValue(forKey: token)?.fail(MTProtoClientError.rpc(error))
                case let .rejected(token, code): calls.removeValue(forKey: token)?.fail(MTProtoClientError.rejected(code: code))
                case let .update(body): onUpdate?(body)
                case .sessionCreated, .dropped: break
                }
            }
            scheduleAcknowledgements(owed: session.owedAcknowledgementCount, context: context)
            context.flush()
        case .failed:
            break
        }
    }

    /// Sends a call; `promise` gets its raw result bytes.
    func call(_ body: [UInt8], promise: EventLoopPromise<[UInt8]>) {
        guard let context else { return promise.fail(MTProtoClientError.connectionClosed) }
        guard case .ready = state else {
            if case let .failed(error) = state { promise.fail(error) } else { promise.fail(MTProtoClientError.connectionClosed) }
            return
        }
        queuedCalls.append((body, promise))
        scheduleSend(context: context)
    }

    private func scheduleAcknowledgements(owed: Int, context: ChannelHandlerContext) {
        guard owed > 0 else { return }
        if owed >= Self.acknowledgementBatch { return scheduleSend(context: context) }
        guard acknowledgementTimer == nil else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        acknowledgementTimer = context.eventLoop.scheduleTask(in: Self.acknowledgementDelay) {
            let (handler, context) = bound.value
            handler.acknowledgementTimer = nil
            handler.scheduleSend(context: context)
        }
    }

    /// Sends the queued calls and owed acknowledgements at the end of the tick (behind the tasks already waiting).
    private func scheduleSend(context: ChannelHandlerContext) {
        sending.schedule(context) { [self] in sendQueued(context: $0) }
    }

    private func sendQueued(context: ChannelHandlerContext) {
        guard case var .ready(session) = state else { return }
        state = .failed(.connectionClosed)   // moved out so the mutations below do not copy its buffers
        var packets: [[UInt8]] = []
        for group in MessageContainer.groups(sizes: queuedCalls.map(\.body.count), reserving: 1) {
            let chunk = queuedCalls[group]
            let (tokens, packet) = session.send(calls: chunk.map(\.body), now: now())
            for (token, call) in zip(tokens, chunk) { calls[token] = call.promise }
            packets.append(packet)
        }
        queuedCalls.removeAll(keepingCapacity: true)
        if let acknowledgements = session.flushAcknowledgements(now: now()) { packets.append(acknowledgements) }
        state = .ready(session)
        acknowledgementTimer?.cancel()
        acknowledgementTimer = nil
        for packet in packets { context.write(wrapOutboundOut(.payload(packet)), promise: nil) }
        context.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.connectionClosed, context: context)
        context.fireChannelInactive()
    }

    private func fail(_ error: MTProtoClientError, context: ChannelHandlerContext) {
        if case .failed = state { return }
        state = .failed(error)
        ready.fail(error)
        for promise in calls.values { promise.fail(error) }
        calls.removeAll()
        for call in queuedCalls { call.promise.fail(error) }
        queuedCalls.removeAll()
        acknowledgementTimer?.cancel()
        acknowledgementTimer = nil
        context.close(promise: nil)
    }
}
