import TL

extension ClientSession {
    /// A hostile server gets no more from this than a bounded amount of work: containers do not nest, and every
    /// `gzip_packed` of the packet inflates within one `inflateBudget` (a body over it, or corrupt, is dropped).
    mutating func handle(messageID: Int64, seqno: Int32, body: [UInt8], now: Double, events: inout [ClientSessionEvent],
                         inflateBudget: inout Int) {
        if seqno & 1 == 1 { owedAcknowledgements.append(messageID) }
        if let contained = (try? MessageContainer.decode(body)) ?? nil {
            for inner in contained {
                handle(messageID: inner.messageID, seqno: inner.seqno, body: inner.body, now: now, events: &events,
                       inflateBudget: &inflateBudget)
            }
            return
        }
        guard let body = unpacked(body, inflateBudget: &inflateBudget) else { return }
        guard let id = try? TLReader(body).peekUInt32() else { return }
        switch id {
        case TLBuiltinID.rpcResult:
            handleResult(body, events: &events, inflateBudget: &inflateBudget)
        case MT.NewSession.NewSessionCreated.constructorID:
            if case let .newSessionCreated(created)? = try? MT.NewSession.deserialize(body) {
                salt = created.serverSalt
                events.append(.sessionCreated)
            }
        case MT.BadMsgNotification.BadServerSalt.constructorID, MT.BadMsgNotification.BadMsgNotification.constructorID:
            if let notice = try? MT.BadMsgNotification.deserialize(body) {
                handleBadMessage(notice, serverMessageID: messageID, now: now, events: &events)
            }
        case MT.Pong.Pong.constructorID:
            // A pong answers the ping call with that msg_id.
            if case let .pong(pong)? = try? MT.Pong.deserialize(body), let call = pending.removeValue(forKey: pong.msgId) {
                events.append(.result(token: call.token, .success(body)))
            }
        case MT.MsgsAck.MsgsAck.constructorID, MT.MsgDetailedInfo.MsgDetailedInfo.constructorID,
             MT.MsgDetailedInfo.MsgNewDetailedInfo.constructorID:
            break
        default:
            events.append(.update(body))
        }
    }

    /// `body` inflated when it is `gzip_packed` (never a second level), itself otherwise; nil when it cannot be.
    private func unpacked(_ body: [UInt8], inflateBudget: inout Int) -> [UInt8]? {
        switch Result(catching: { () throws(GzipPacked.Failure) in try GzipPacked.unpack(body, budget: &inflateBudget) }) {
        case .success(nil): return body
        case let .success(inner?): return (try? TLReader(inner).peekUInt32()) == TLBuiltinID.gzipPacked ? nil : inner
        case .failure: return nil
        }
    }

    private mutating func handleResult(_ body: [UInt8], events: inout [ClientSessionEvent], inflateBudget: inout Int) {
        var reader = TLReader(body)
        guard (try? reader.readUInt32()) != nil, let requestID = try? reader.readInt64(),
              let call = pending.removeValue(forKey: requestID)
        else { return }
        guard let result = unpacked(Array(body[reader.offset...]), inflateBudget: &inflateBudget) else {
            // An answer that cannot be inflated fails its call rather than leaving it to time out.
            events.append(.result(token: call.token, .failure(RPCError(code: 500, message: "RESULT_UNREADABLE"))))
            return
        }
        if case let .rpcError(error)? = try? MT.RpcError.deserialize(result) {
            events.append(.result(token: call.token, .failure(RPCError(error))))
        } else {
            events.append(.result(token: call.token, .success(result)))
        }
    }

    /// bad_server_salt: take the new salt and resend. 16/17: correct the clock from the server's msg_id and resend.
    /// 32/33 (seqno): resend. 19 (an id the server has seen): keep waiting. Anything else rejects the call.
    private mutating func handleBadMessage(_ notice: MT.BadMsgNotification, serverMessageID: Int64, now: Double,
                                           events: inout [ClientSessionEvent]) {
        let badID: Int64
        let code: Int32
        switch notice {
        case let .badServerSalt(value):
            salt = value.newServerSalt
            (badID, code) = (value.badMsgId, value.errorCode)
        case let .badMsgNotification(value):
            (badID, code) = (value.badMsgId, value.errorCode)
        }
        // A notice about a container concerns every call inside it.
        let ids = containers.removeValue(forKey: badID) ?? [badID]
        if code == BadMessageCode.messageIDDuplicate.rawValue {
            // The server has these ids already (a duplicated or resent packet): the first copy's answers come, or the
            // request times out as any other; giving the calls up here failed calls the server had carried out.
            if ids != [badID] { containers[badID] = ids }
            return
        }
        let calls = ids.compactMap { pending.removeValue(forKey: $0) }
        guard !calls.isEmpty else { return }
        switch code {
        case BadMessageCode.badServerSalt.rawValue, BadMessageCode.seqnoTooLow.rawValue, BadMessageCode.seqnoTooHigh.rawValue:
            events.append(.send(seal(calls, now: now)))
        case BadMessageCode.messageIDTooLow.rawValue, BadMessageCode.messageIDTooHigh.rawValue:
            timeOffset = Double(serverMessageID >> 32) - now
            messageIDs.reset()
            events.append(.send(seal(calls, now: now)))
        default:
            events.append(contentsOf: calls.map { .rejected(token: $0.token, code: code) })
        }
    }
}
