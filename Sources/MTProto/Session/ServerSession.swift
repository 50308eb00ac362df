import TL

/// An RPC the server must answer, unwrapped from `invokeWithLayer`, `initConnection`, `invokeWithoutUpdates` and
/// `invokeAfterMsg` (core.telegram.org/api/invoking).
public struct IncomingRPC: Sendable {
    public let messageID: Int64
    public let sessionID: Int64
    /// The method itself, innermost.
    public let function: TLAnyFunction
    /// From `invokeWithLayer`, if the call carried it.
    public let layer: Int32?
    /// From `initConnection`, if the call carried it.
    public let connection: API.functions.InitConnection<TLAnyFunction>?
    /// Wrapped in `invokeWithoutUpdates`: this session wants no pushed updates.
    public let withoutUpdates: Bool

    /// A call as a session decoded it; an in-process server (`LocalServer`) makes its own.
    public init(messageID: Int64, sessionID: Int64, function: TLAnyFunction, layer: Int32? = nil,
                connection: API.functions.InitConnection<TLAnyFunction>? = nil, withoutUpdates: Bool = false) {
        self.messageID = messageID
        self.sessionID = sessionID
        self.function = function
        self.layer = layer
        self.connection = connection
        self.withoutUpdates = withoutUpdates
    }
}

/// What the server session wants done.
public enum ServerSessionEvent: Sendable {
    /// An encrypted packet to frame and send.
    case send([UInt8])
    /// A call to dispatch; answer it with `ServerSession.respond(to:result:now:)`.
    case invoke(IncomingRPC)
    /// `ping_delay_disconnect`: close the connection if no new ping arrives within this many seconds.
    case disconnectAfter(seconds: Int32)
    /// The packet could not be decrypted with this key: drop it silently (core.telegram.org/mtproto/description).
    case dropped(PacketError)
    /// The packet is the first of a session on this connection and sessions must be claimed (`claimsSessions`): it was
    /// not handled; receive it again after `claimed(_:floor:now:)`.
    case claimSession(Int64)
}

/// The server's half of an encrypted MTProto session on one connection, sans I/O
/// (core.telegram.org/mtproto/service_messages, /service_messages_about_messages).
///
/// A message with a wrong salt gets `bad_server_salt` and is not executed; the first message of a new session id
/// gets `new_session_created` first; msg_ids outside (−300 s, +30 s), with wrong low bits or seen before get
/// `bad_msg_notification`; containers and `gzip_packed` are opened; `ping` → `pong`; acks are accepted.
public struct ServerSession<RNG: RandomNumberGenerator> {
    /// Results larger than this are sent as `gzip_packed` (never an `rpc_error`: some clients then read it as a result).
    public static var gzipThreshold: Int { 512 }
    /// Whether a result goes as `gzip_packed`: above `gzipThreshold`, except file bytes (`upload.file#96a18d5`,
    /// `upload.cdnFile#a99fca4f`), which are compressed already or random and deflate at a few tens of MB/s — Telegram
    /// sends them as they are.
    static func packs(_ result: [UInt8]) -> Bool {
        guard result.count > gzipThreshold else { return false }
        switch result.withUnsafeBytes({ $0.loadUnaligned(as: UInt32.self).littleEndian }) {
        case 0x096a_18d5, 0xa99f_ca4f: return false
        default: return true
        }
    }

    public let authKey: AuthKey
    /// This key's salts, one per hour (`ServerSalts`).
    public private(set) var salts: ServerSalts
    private var rng: RNG
    /// The msg_ids seen per session, shared with the server's other connections (nil: this connection's own).
    private let replayWindows: ReplayWindows?
    /// The client's current session id (the last one it used on this connection).
    public private(set) var sessionID: Int64?
    private var messageIDs = MessageIDGenerator()
    private var seqno = SequenceNumberGenerator()
    private var validator = MessageIDValidator()
    private var seqnoValidator = SequenceNumberValidator()
    /// Whether the first packet of each session must wait for a claim (`ServerSessionEvent.claimSession`): the server
    /// runs as several processes, whose replay windows are their own.
    public var claimsSessions = false
    /// Sessions claimed on this connection.
    private var claimed: Set<Int64> = []
    /// Messages produced while handling one packet; sent together (in a container when there are several).
    private var outgoing: [(body: [UInt8], contentRelated: Bool, response: Bool)] = []

    /// `salt`: the key's stored salt, from which each hour's salt is derived. `replayWindows`: the server's shared
    /// msg_id windows, so that a packet replayed on another connection is refused.
    public init(authKey: AuthKey, salt: Int64, createdAt: Int32? = nil, replayWindows: ReplayWindows? = nil, rng: RNG) {
        self.authKey = authKey
        salts = ServerSalts(authKey: authKey, base: salt, createdAt: createdAt)
        self.replayWindows = replayWindows
        self.rng = rng
    }

    /// `session` was claimed: its packets are handled from now on. With a `floor` another process may have served it,
    /// and its msg_ids below the floor are refused (`ReplayWindows.takeOver`).
    public mutating func claimed(_ session: Int64, floor: Int64?, now: Double) {
        claimed.insert(session)
        guard let floor else { return }
        if let replayWindows {
            replayWindows.takeOver(authKeyID: authKey.id, sessionID: session, floor: floor, now: now)
        } else {
            validator = MessageIDValidator(floor: floor)
        }
    }

    /// The salt clients must use now.
    public mutating func salt(at now: Double) -> Int64 {
        salts.current(at: now)
    }

    /// Handles one encrypted packet from the client. `now` is the server's unix time.
    public mutating func receive(_ packet: [UInt8], now: Double) -> [ServerSessionEvent] {
        let message: DecryptedMessage
        do {
            message = try EncryptedPacket.decrypt(packet, authKey: authKey, direction: .clientToServer)
        } catch {
            return [.dropped(error)]
        }
        if message.sessionID != sessionID, claimsSessions, !claimed.contains(message.sessionID) {
            return [.claimSession(message.sessionID)]
        }
        var events: [ServerSessionEvent] = []
        if message.sessionID != sessionID {
            sessionID = message.sessionID
            seqno = SequenceNumberGenerator()
            seqnoValidator = SequenceNumberValidator()
            let created = MT.NewSession.newSessionCreated(.init(
                firstMsgId: message.messageID, uniqueId: Int64(bitPattern: rng.next()), serverSalt: salts.current(at: now)))
            outgoing.append((created.serialized(), true, false))
        }
        if !salts.accepts(message.salt, at: now) {
            let notice = MT.BadMsgNotification.badServerSalt(.init(
                badMsgId: message.messageID, badMsgSeqno: message.seqno, errorCode: BadMessageCode.badServerSalt.rawValue,
                newServerSalt: salts.current(at: now)))
            outgoing.append((notice.serialized(), false, true))
        } else {
            var inflateBudget = Self.maximumInflatedBytesPerPacket
            handle(messageID: message.messageID, seqno: message.seqno, body: message.body, now: now, into: &events,
                   inContainer: false, inflateBudget: &inflateBudget)
        }
        events.insert(contentsOf: sealQueued(now: now).map(ServerSessionEvent.send), at: 0)
        return events
    }

    /// What all the `gzip_packed` bodies of one packet may inflate to together: as much as a frame may carry. A
    /// client compresses one call at a time, so an honest packet never comes near it; a packet of nested or
    /// repeated bombs stops here (before, each body had 16 MiB of its own).
    public static var maximumInflatedBytesPerPacket: Int { 1 << 20 }

    /// At most this many messages and about this many bytes go in one container; a larger message goes alone.
    public static var containerLimit: (messages: Int, bytes: Int) { MessageContainer.sendLimit }

    /// Packets for everything queued (service answers of the packet being handled, results queued with
    /// `queueResult`): a message alone, or `msg_container`s (core.telegram.org/mtproto/service_messages#simple-container)
    /// of up to `containerLimit` messages each — one encryption and one frame for many answers.
    public mutating func sealQueued(now: Double) -> [[UInt8]] {
        defer { outgoing.removeAll(keepingCapacity: true) }
        return MessageContainer.groups(sizes: outgoing.map(\.body.count)).map { sealGroup(outgoing[$0], now: now) }
    }

    private mutating func sealGroup(_ group: ArraySlice<(body: [UInt8], contentRelated: Bool, response: Bool)>, now: Double) -> [UInt8] {
        if group.count == 1, let item = group.first {
            return seal(item.body, contentRelated: item.contentRelated, response: item.response, now: now)
        }
        let messages = group.map { item in
            ContainedMessage(messageID: messageIDs.next(item.response ? .serverResponse : .serverInitiated, now: now),
                             seqno: seqno.next(contentRelated: item.contentRelated), body: item.body)
        }
        return seal(MessageContainer.encode(messages), contentRelated: false, response: false, now: now)
    }

    /// The encrypted `rpc_result` for a call (or its `rpc_error` when `result` is an `RPCError`).
    public mutating func respond(to requestID: Int64, result: Result<[UInt8], RPCError>, now: Double) -> [UInt8] {
        seal(resultBody(to: requestID, result: result), contentRelated: true, response: true, now: now)
    }

    /// Queues the `rpc_result` for a call; it leaves with the next `sealQueued` (or the next packet's answers).
    public mutating func queueResult(to requestID: Int64, result: Result<[UInt8], RPCError>) {
        outgoing.append((resultBody(to: requestID, result: result), true, true))
    }

    /// `rpc_result` (gzip_packed when large) or `rpc_error` for a call.
    func resultBody(to requestID: Int64, result: Result<[UInt8], RPCError>) -> [UInt8] {
        var body = TLWriter()
        body.writeUInt32(TLBuiltinID.rpcResult)
        body.writeInt64(requestID)
        switch result {
        case let .success(bytes):
            body.writeRaw(Self.packs(bytes) ? GzipPacked.pack(bytes) : bytes)
        case let .failure(error):
            error.object.encode(to: &body)
        }
        return body.bytes
    }

    /// Queues a service answer for the packet being handled.
    mutating func enqueue(_ body: [UInt8], contentRelated: Bool, response: Bool) {
        outgoing.append((body, contentRelated, response))
    }

    /// A server-initiated message (an update push).
    public mutating func push(_ body: [UInt8], now: Double) -> [UInt8] {
        seal(body.count > Self.gzipThreshold ? GzipPacked.pack(body) : body, contentRelated: true, response: false, now: now)
    }

    /// Several server-initiated messages (pushes that piled up for the session and are not one `Updates`) in as few
    /// packets as `containerLimit` allows: each stays a message of its own for the client, and many cost one
    /// encryption and one frame.
    public mutating func push(_ bodies: [[UInt8]], now: Double) -> [[UInt8]] {
        let items = bodies.map { body in
            (body: body.count > Self.gzipThreshold ? GzipPacked.pack(body) : body, contentRelated: true, response: false)
        }
        return MessageContainer.groups(sizes: items.map(\.body.count)).map { sealGroup(items[$0], now: now) }
    }

    mutating func seal(_ body: [UInt8], contentRelated: Bool, response: Bool, now: Double) -> [UInt8] {
        let message = DecryptedMessage(
            salt: salts.current(at: now), sessionID: sessionID ?? 0,
            messageID: messageIDs.next(response ? .serverResponse : .serverInitiated, now: now),
            seqno: seqno.next(contentRelated: contentRelated), body: body)
        return EncryptedPacket.encrypt(message, authKey: authKey, direction: .serverToClient, using: &rng)
    }

    private mutating func notifyBadMessage(_ code: BadMessageCode, messageID: Int64, seqno: Int32, now: Double,
                                           into events: inout [ServerSessionEvent]) {
        let notice = MT.BadMsgNotification.badMsgNotification(.init(badMsgId: messageID, badMsgSeqno: seqno, errorCode: code.rawValue))
        outgoing.append((notice.serialized(), false, true))
    }

    private mutating func handle(messageID: Int64, seqno: Int32, body: [UInt8], now: Double,
                                 into events: inout [ServerSessionEvent], inContainer: Bool, inflateBudget: inout Int) {
        let replay = replayWindows.map { $0.check(messageID, authKeyID: authKey.id, sessionID: sessionID ?? 0, now: now) }
            ?? validator.check(messageID, now: now)
        if let code = replay ?? seqnoValidator.check(messageID: messageID, seqno: seqno) {
            // An id seen before (a resend, a duplicated or replayed packet) is ignored without an answer: the first
            // copy is answered, and a notice would make the client give up a call carried out. The rest are reported.
            if code != .messageIDDuplicate {
                notifyBadMessage(code, messageID: messageID, seqno: seqno, now: now, into: &events)
            }
            return
        }
        // gzip_packed wraps one call or answer (core.telegram.org/mtproto/service_messages#packed-object): what it
        // holds is never another gzip_packed nor a container, and a body that does not inflate within the packet's
        // budget is answered like any call that cannot be read.
        let unpacked: [UInt8]?
        do {
            unpacked = try GzipPacked.unpack(body, budget: &inflateBudget)
        } catch {
            refuse(messageID: messageID, seqno: seqno, now: now, into: &events)
            return
        }
        if let unpacked {
            let inner = try? TLReader(unpacked).peekUInt32()
            guard inner != TLBuiltinID.gzipPacked, inner != TLBuiltinID.msgContainer else {
                refuse(messageID: messageID, seqno: seqno, now: now, into: &events)
                return
            }
        }
        dispatch(messageID: messageID, seqno: seqno, body: unpacked ?? body, now: now, into: &events, inContainer: inContainer,
                 inflateBudget: &inflateBudget)
    }

    /// A call whose body cannot be read: `rpc_error 400 INPUT_FETCH_ERROR` (Telegram's answer to a request it cannot
    /// deserialize) when it is content-related and so expects an answer; nothing otherwise.
    private mutating func refuse(messageID: Int64, seqno: Int32, now: Double, into events: inout [ServerSessionEvent]) {
        guard seqno & 1 == 1 else { return }
        enqueue(resultBody(to: messageID, result: .failure(RPCError(code: 400, message: "INPUT_FETCH_ERROR"))),
                contentRelated: true, response: true)
    }

    /// Routes a validated message: containers, acks, state requests, then calls.
    private mutating func dispatch(messageID: Int64, seqno: Int32, body: [UInt8], now: Double,
                                   into events: inout [ServerSessionEvent], inContainer: Bool, inflateBudget: inout Int) {
        switch Result(catching: { () throws(TLDecodingError) in try MessageContainer.decode(body) }) {
        case let .success(contained?):
            guard seqno & 1 == 0 else {
                notifyBadMessage(.seqnoEvenExpected, messageID: messageID, seqno: seqno, now: now, into: &events)
                return
            }
            guard !inContainer else {
                notifyBadMessage(.invalidContainer, messageID: messageID, seqno: seqno, now: now, into: &events)
                return
            }
            for inner in contained {
                handle(messageID: inner.messageID, seqno: inner.seqno, body: inner.body, now: now, into: &events, inContainer: true,
                       inflateBudget: &inflateBudget)
            }
            return
        case .failure:
            notifyBadMessage(.invalidContainer, messageID: messageID, seqno: seqno, now: now, into: &events)
            return
        case .success(nil):
            break
        }
        if (try? MT.MsgsAck.deserialize(body)) != nil {
            // Acks are not content-related: an odd seqno is a protocol error (34), but there is nothing to answer.
            if seqno & 1 == 1 { notifyBadMessage(.seqnoEvenExpected, messageID: messageID, seqno: seqno, now: now, into: &events) }
            return
        }
        if case let .msgsStateReq(request)? = try? MT.MsgsStateReq.deserialize(body) {
            // 1 = "nothing is known about the message": this server keeps no per-message delivery state.
            let info = MT.MsgsStateInfo.msgsStateInfo(.init(reqMsgId: messageID, info: String(repeating: "\u{1}", count: request.msgIds.count)))
            outgoing.append((info.serialized(), false, true))
            return
        }
        // Calls are content-related and need an odd seqno (35 otherwise). The counter itself (32/33) is not checked:
        // clients restart it with every new session id and the spec leaves the server free to be lenient. A ping is
        // answered whatever its seqno: a widely used client opens each session with a ping whose seqno is even, and
        // Telegram answers it.
        guard seqno & 1 == 1 || Self.isPing(body) else {
            notifyBadMessage(.seqnoOddExpected, messageID: messageID, seqno: seqno, now: now, into: &events)
            return
        }
        handleCall(messageID: messageID, body: body, now: now, into: &events)
    }

    private static func isPing(_ body: [UInt8]) -> Bool {
        guard let id = try? TLReader(body).peekUInt32() else { return false }
        return id == MT.functions.Ping.constructorID || id == MT.functions.PingDelayDisconnect.constructorID
    }
}
