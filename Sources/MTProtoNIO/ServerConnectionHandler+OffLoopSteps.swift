import Logging
import MTProto
import NIOCore
import NIOPosix

/// Steps that run off the event loop while the connection's later frames wait (and its socket is not read):
///
/// - A key-exchange step: the RSA decryption of `req_DH_params` and the Diffie–Hellman exponentiation take
///   milliseconds, which would hold every other connection of the loop, so they run on NIO's thread pool with the
///   connection's state; a new key is then stored (`MTProtoServerDelegate.store`, a database commit) before the
///   `dh_gen_ok` that follows it is sent.
/// - A key lookup: a frame naming a key the delegate does not have in memory waits for `loadAuthKey` (a database read:
///   another process may have made the key).
/// - A session claim: the first frame of a session on the connection waits for `claimSession` when the server runs
///   as several processes (a database write), and is handled after it with the replay window it left.
///
/// Each step takes a token from the address's `KeyExchangeLimiter` (an exchange takes three); a peer out of tokens is
/// closed.
extension ServerConnectionHandler {
    func runExchangeStep(_ frame: [UInt8], context: ChannelHandlerContext) {
        guard admitStep(context: context) else { return }
        let state = Transfer(connection)
        let (delegate, logger, now) = (self.delegate, self.logger, self.now())
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) { () -> Transfer<ServerConnection<RandomSource>> in
            var connection = state.value
            let actions = connection.receive(frame, now: now)
            return Transfer(connection, actions: actions)
        }.whenComplete { result in
            let (handler, context) = bound.value
            guard case let .success(step) = result, context.channel.isActive else {
                handler.stepRunning = false
                context.close(promise: nil)
                return
            }
            handler.connection = step.value
            var rest = step.actions
            guard let index = rest.firstIndex(where: \.isStoreKey), case let .storeKey(key) = rest.remove(at: index) else {
                return handler.finishStep(rest, context: context)
            }
            // Stored before the dh_gen_ok that follows it is sent: acknowledge only what is stored.
            context.eventLoop.makeFutureWithTask { try await delegate.store(key) }.whenComplete { [rest] stored in
                let (handler, context) = bound.value
                guard case let .failure(error) = stored else { return handler.finishStep(rest, context: context) }
                logger.error("could not store a new auth key", metadata: ["error": "\(error)"])
                handler.finishStep([.close], context: context)
            }
        }
    }

    /// Looks up the key `frame` names, then handles the frame with what was found.
    func runKeyLookup(_ keyID: UInt64, frame: [UInt8], context: ChannelHandlerContext) {
        guard admitStep(context: context) else { return }
        let (delegate, logger, receivedAt) = (self.delegate, self.logger, now())
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.makeFutureWithTask { await delegate.loadAuthKey(id: keyID) }.whenComplete { result in
            let (handler, context) = bound.value
            guard context.channel.isActive else { return handler.finishStep([], context: context) }
            switch result {
            case let .success(.found(key)):
                handler.finishStep(handler.connection.receive(frame, now: handler.now(), knownKey: key), frame: (frame, receivedAt),
                                   context: context)
            case .success(.unknown):
                handler.finishStep(handler.connection.receive(frame, now: handler.now()), frame: (frame, receivedAt), context: context)
            case .success(.unavailable), .failure:
                logger.debug("closing a connection whose key cannot be looked up now", metadata: ["auth_key_id": "\(String(keyID, radix: 16))"])
                handler.finishStep([.close], context: context)
            }
        }
    }

    /// Claims `session` for this process, then receives `frame` (received at `receivedAt`) again, its session now claimed.
    func runSessionClaim(_ session: Int64, frame: [UInt8], receivedAt: Double, context: ChannelHandlerContext) {
        guard let keyID = connection.authKeyID else { return perform([.close], context: context) }
        guard admitStep(context: context) else { return }
        let (delegate, logger) = (self.delegate, self.logger)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.makeFutureWithTask {
            await delegate.claimSession(authKeyID: keyID, sessionID: session, receivedAt: receivedAt)
        }.whenComplete { result in
            let (handler, context) = bound.value
            guard context.channel.isActive else { return handler.finishStep([], context: context) }
            let floor: Int64?
            switch result {
            case .success(.kept): floor = nil
            case let .success(.takenOver(value)): floor = value
            case .success(.unavailable), .failure:
                logger.debug("closing a connection whose session cannot be claimed now")
                return handler.finishStep([.close], context: context)
            }
            handler.connection.sessionClaimed(session, floor: floor, now: handler.now())
            handler.finishStep(handler.connection.receive(frame, now: handler.now()), frame: (frame, receivedAt), context: context)
        }
    }

    /// Takes a token for a step from the peer's address, or closes the connection; marks the step as running.
    private func admitStep(context: ChannelHandlerContext) -> Bool {
        let address = clientAddress?.value ?? context.channel.remoteAddress?.ipAddress ?? ""
        guard keyExchanges?.admitPlainFrame(from: address, now: uptime()) ?? true else {
            logger.debug("key exchange refused: over the address's rate", metadata: ["peer": "\(address)"])
            context.close(promise: nil)
            return false
        }
        stepRunning = true
        updateReading(context: context)
        return true
    }

    /// Ends a step: its actions (those of `frame`, which may ask for a claim first), then the frames that waited for
    /// it, in order (until one starts another step).
    private func finishStep(_ actions: [ServerConnectionAction], frame: (bytes: [UInt8], receivedAt: Double)? = nil,
                            context: ChannelHandlerContext) {
        stepRunning = false
        guard context.channel.isActive else { return }
        if let frame {
            proceed(actions, frame: frame.bytes, receivedAt: frame.receivedAt, context: context)
        } else {
            perform(actions, context: context)
        }
        while !stepRunning, context.channel.isActive, let next = framesDuringStep.popFirst() {
            receive(next, context: context)
        }
        updateReading(context: context)
    }
}

extension ServerConnectionAction {
    var isStoreKey: Bool {
        if case .storeKey = self { return true }
        return false
    }
}

/// A connection's state on its way to the thread pool and back. Not `Sendable` by itself (it holds the key lookup
/// closure and the RNG), but only one side has it at a time: the handler does not touch its copy while a step runs
/// (frames wait), and takes the step's result back as its state.
struct Transfer<Value>: @unchecked Sendable {
    let value: Value
    var actions: [ServerConnectionAction] = []

    init(_ value: Value, actions: [ServerConnectionAction] = []) {
        self.value = value
        self.actions = actions
    }
}
