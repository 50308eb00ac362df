import TL

extension ServerSession {
    /// Service calls are answered here; everything else becomes an `IncomingRPC`. A body that is no known
    /// function gets an `rpc_error` naming its constructor id; a known one whose arguments do not decode (truncated,
    /// an unknown constructor inside, a string that is not UTF-8) gets `INPUT_FETCH_ERROR`; the session goes on.
    mutating func handleCall(messageID: Int64, body: [UInt8], now: Double, into events: inout [ServerSessionEvent]) {
        let function: TLAnyFunction
        do {
            // Strings from clients must be UTF-8: repaired ones would grow when stored and rendered back.
            var reader = TLReader(body, rejectsInvalidUTF8: true)
            function = try TLAnyFunction.decode(from: &reader)
            try reader.expectEnd()
        } catch {
            let id = (try? TLReader(body).peekUInt32()) ?? 0
            let message: String
            if case .unknownConstructor(_, 0, _) = error { message = "INPUT_METHOD_INVALID_\(id)" } else { message = "INPUT_FETCH_ERROR" }
            enqueue(resultBody(to: messageID, result: .failure(RPCError(code: 400, message: message))), contentRelated: true,
                    response: true)
            return
        }
        switch function.function {
        case let ping as MT.functions.Ping:
            enqueue(MT.Pong.pong(.init(msgId: messageID, pingId: ping.pingId)).serialized(), contentRelated: true, response: true)
        case let ping as MT.functions.PingDelayDisconnect:
            enqueue(MT.Pong.pong(.init(msgId: messageID, pingId: ping.pingId)).serialized(), contentRelated: true, response: true)
            events.append(.disconnectAfter(seconds: ping.disconnectDelay))
        case let request as MT.functions.GetFutureSalts:
            // The salts of this hour and the next ones (at most 64, as Telegram gives), valid from their hour's start.
            let future = salts.future(count: max(1, min(Int(request.num), 64)), at: now).map {
                MT.FutureSalt.FutureSalt(validSince: $0.validSince, validUntil: $0.validUntil, salt: $0.salt)
            }
            let answer = MT.FutureSalts.futureSalts(.init(reqMsgId: messageID, now: Int32(clamping: Int64(now)), salts: future))
            enqueue(answer.serialized(), contentRelated: true, response: true)
        case let request as MT.functions.DestroySession:
            // Only the current session has state here; any other id is unknown.
            let answer: MT.DestroySessionRes = request.sessionId == sessionID
                ? .destroySessionOk(.init(sessionId: request.sessionId))
                : .destroySessionNone(.init(sessionId: request.sessionId))
            enqueue(resultBody(to: messageID, result: .success(answer.serialized())), contentRelated: true, response: true)
        case is MT.functions.RpcDropAnswer:
            // Answers are sent as soon as they are computed, so there is never one left to drop.
            enqueue(resultBody(to: messageID, result: .success(MT.RpcDropAnswer.rpcAnswerUnknown(.init()).serialized())),
                    contentRelated: true, response: true)
        default:
            events.append(.invoke(unwrap(function, messageID: messageID)))
        }
    }

    /// Peels `invokeWithLayer`, `initConnection`, `invokeWithoutUpdates` and `invokeAfterMsg` off a call.
    private func unwrap(_ call: TLAnyFunction, messageID: Int64) -> IncomingRPC {
        var function = call
        var layer: Int32?
        var connection: API.functions.InitConnection<TLAnyFunction>?
        var withoutUpdates = false
        while true {
            switch function.function {
            case let wrapper as API.functions.InvokeWithLayer<TLAnyFunction>:
                layer = wrapper.layer
                function = wrapper.query
            case let wrapper as API.functions.InitConnection<TLAnyFunction>:
                connection = wrapper
                function = wrapper.query
            case let wrapper as API.functions.InvokeWithoutUpdates<TLAnyFunction>:
                withoutUpdates = true
                function = wrapper.query
            case let wrapper as API.functions.InvokeAfterMsg<TLAnyFunction>:
                function = wrapper.query
            default:
                return IncomingRPC(messageID: messageID, sessionID: sessionID ?? 0, function: function, layer: layer,
                                   connection: connection, withoutUpdates: withoutUpdates)
            }
        }
    }
}
