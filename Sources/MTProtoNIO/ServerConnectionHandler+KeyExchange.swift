import Logging
import MTProto
import NIOCore
import NIOPosix

/// Auth-key exchange steps run off the event loop: the RSA decryption of `req_DH_params`, the Diffie–Hellman
/// exponentiation and the synced write of a new key take milliseconds, which would hold every other connection of
/// the loop. A step runs on NIO's thread pool with the connection's state; frames that arrive meanwhile wait (and the
/// socket is not read) until it is back. Each plain frame takes a token from the address's `KeyExchangeLimiter`; a
/// peer out of tokens is closed.
extension ServerConnectionHandler {
    func runExchangeStep(_ frame: [UInt8], context: ChannelHandlerContext) {
        let address = context.channel.remoteAddress?.ipAddress ?? ""
        let monotonic = uptime()
        guard keyExchanges?.admitPlainFrame(from: address, now: monotonic) ?? true else {
            logger.debug("key exchange refused: over the address's rate", metadata: ["peer": "\(address)"])
            context.close(promise: nil)
            return
        }
        exchangeStepRunning = true
        updateReading(context: context)
        let state = Transfer(connection)
        let (delegate, logger, now) = (self.delegate, self.logger, self.now())
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) { () -> Transfer<ServerConnection<RandomSource>> in
            var connection = state.value
            let actions = connection.receive(frame, now: now)
            var kept: [ServerConnectionAction] = []
            for action in actions {
                guard case let .storeKey(key) = action else {
                    kept.append(action)
                    continue
                }
                // Synced before the dh_gen_ok that follows it is sent: acknowledge only what is stored.
                do {
                    try delegate.store(key)
                } catch {
                    logger.error("could not store a new auth key", metadata: ["error": "\(error)"])
                    kept = [.close]
                    break
                }
            }
            return Transfer(connection, actions: kept)
        }.whenComplete { result in
            let (handler, context) = bound.value
            handler.exchangeStepRunning = false
            guard case let .success(step) = result, context.channel.isActive else {
                context.close(promise: nil)
                return
            }
            handler.connection = step.value
            handler.perform(step.actions, context: context)
            while !handler.exchangeStepRunning, context.channel.isActive, let next = handler.framesDuringExchange.popFirst() {
                handler.receive(next, context: context)
            }
            handler.updateReading(context: context)
        }
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
