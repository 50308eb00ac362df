/// An auth key the server knows, with the salt its sessions use.
public struct StoredAuthKey: Sendable, Equatable {
    public let authKey: AuthKey
    public let salt: Int64
    /// Seconds a temporary key lives after creation; nil for a permanent key.
    public let expiresIn: Int32?
    /// Unix time of the exchange that made the key (nil for keys stored before it was recorded): a temporary key is
    /// refused once `expiresIn` has passed, and the key's first salt is the exchange's for the hour it was made.
    public let createdAt: Int32?

    public init(authKey: AuthKey, salt: Int64, expiresIn: Int32? = nil, createdAt: Int32? = nil) {
        self.authKey = authKey
        self.salt = salt
        self.expiresIn = expiresIn
        self.createdAt = createdAt
    }

    /// Whether a temporary key's lifetime has run out at `now` (a permanent key never expires).
    public func hasExpired(at now: Double) -> Bool {
        guard let expiresIn, let createdAt else { return false }
        return now >= Double(createdAt) + Double(expiresIn)
    }
}

/// What one server connection wants done, in order.
public enum ServerConnectionAction: Sendable {
    /// Persist a new key before the `dh_gen_ok` that follows is sent (acknowledge only what is stored).
    case storeKey(StoredAuthKey)
    /// A frame payload to send.
    case send([UInt8])
    /// A transport error to send, then close (−404 for an unknown key).
    case sendTransportError(TransportErrorCode)
    case close
    case invoke(IncomingRPC)
    case disconnectAfter(seconds: Int32)
    /// The frame is the first of this session on the connection and was not handled: claim the session
    /// (`sessionClaimed(_:floor:now:)`), then receive the frame again. Alone in its list.
    case claimSession(Int64)
}

/// One server connection above the transport, sans I/O: unencrypted frames run the auth-key exchange,
/// encrypted ones are routed to the session of their key (looked up through `lookUpKey`).
public struct ServerConnection<RNG: RandomNumberGenerator> {
    private enum State {
        case idle
        case handshaking(ServerAuthKeyExchange<RNG>)
        case session(ServerSession<RNG>)
        case closed
    }

    private let rsaKey: RSAPrivateKey
    private let lookUpKey: (UInt64) -> StoredAuthKey?
    private var rng: RNG
    private var state = State.idle
    private var messageIDs = MessageIDGenerator()
    private let replayWindows: ReplayWindows?
    private let claimsSessions: Bool

    /// `replayWindows`: the msg_ids the server has seen per session, shared by all its connections. `claimsSessions`:
    /// the first packet of each session waits for a claim (`ServerConnectionAction.claimSession`).
    public init(rsaKey: RSAPrivateKey, rng: RNG, replayWindows: ReplayWindows? = nil, claimsSessions: Bool = false,
                lookUpKey: @escaping (UInt64) -> StoredAuthKey?) {
        self.rsaKey = rsaKey
        self.rng = rng
        self.replayWindows = replayWindows
        self.claimsSessions = claimsSessions
        self.lookUpKey = lookUpKey
    }

    /// The session the last `.claimSession` named is claimed; `floor` as `ServerSession.claimed(_:floor:now:)`.
    public mutating func sessionClaimed(_ session: Int64, floor: Int64?, now: Double) {
        withSession { $0.claimed(session, floor: floor, now: now) }
    }

    /// The auth key this connection's session uses, once there is one.
    public var authKeyID: UInt64? {
        if case let .session(session) = state { return session.authKey.id }
        return nil
    }

    /// The auth key this connection's session uses, with its salt (for a look at a frame before it is handled).
    public var authKey: AuthKey? {
        if case let .session(session) = state { return session.authKey }
        return nil
    }

    /// The MTProto session the connection's last packet belonged to.
    public var sessionID: Int64? {
        if case let .session(session) = state { return session.sessionID }
        return nil
    }

    /// `knownKey`: the key the frame names when the caller has just looked it up (`lookUpKey` is not asked then).
    public mutating func receive(_ frame: [UInt8], now: Double, knownKey: StoredAuthKey? = nil) -> [ServerConnectionAction] {
        if case .closed = state { return [] }
        guard let keyID = EncryptedPacket.authKeyID(of: frame) else { return close() }
        if keyID == 0 { return handshake(frame, now: now) }
        if authKeyID == keyID {   // (no binding of the session here: a live copy would defeat the in-place mutation)
            let events = withSession { $0.receive(frame, now: now) } ?? []
            return translate(events)
        }
        let given = knownKey.flatMap { $0.authKey.id == keyID ? $0 : nil }
        guard let stored = given ?? lookUpKey(keyID), !stored.hasExpired(at: now) else {
            state = .closed
            return [.sendTransportError(.authKeyNotFound), .close]
        }
        var session = ServerSession(authKey: stored.authKey, salt: stored.salt, createdAt: stored.createdAt,
                                    replayWindows: replayWindows, rng: rng)
        session.claimsSessions = claimsSessions
        let actions = translate(session.receive(frame, now: now))
        state = .session(session)
        return actions
    }

    /// Queues the answer to a call this connection reported with `.invoke`; `sealQueued` encrypts what is queued.
    public mutating func queueResponse(to rpc: IncomingRPC, result: Result<[UInt8], RPCError>) -> Bool {
        withSession { $0.queueResult(to: rpc.messageID, result: result) } != nil
    }

    /// Packets for the queued answers (several per `msg_container`).
    public mutating func sealQueued(now: Double) -> [[UInt8]] {
        withSession { $0.sealQueued(now: now) } ?? []
    }

    /// An encrypted server-initiated message (an update push) on this connection's session.
    public mutating func push(_ body: [UInt8], now: Double) -> [UInt8]? {
        withSession { $0.push(body, now: now) }
    }

    /// Several pushes in as few packets as containers allow (`ServerSession.push(_:now:)`).
    public mutating func push(_ bodies: [[UInt8]], now: Double) -> [[UInt8]]? {
        withSession { $0.push(bodies, now: now) }
    }

    /// Mutates the session in place. The session is moved out of `state` first: mutating a copy that `state` still
    /// shares would copy its replay-window set and arrays on every packet (copy-on-write), which profiling showed.
    private mutating func withSession<T>(_ body: (inout ServerSession<RNG>) -> T) -> T? {
        guard case var .session(session) = state else { return nil }
        state = .idle
        defer { state = .session(session) }
        return body(&session)
    }

    private mutating func handshake(_ frame: [UInt8], now: Double) -> [ServerConnectionAction] {
        guard let message = try? PlainMessage.decode(frame) else { return close() }
        var exchange: ServerAuthKeyExchange<RNG>
        if case let .handshaking(current) = state { exchange = current } else { exchange = ServerAuthKeyExchange(rsaKey: rsaKey, rng: rng) }
        do {
            switch try exchange.receive(message.body, now: Int32(clamping: Int64(now))) {
            case let .reply(body):
                state = .handshaking(exchange)
                return [.send(PlainMessage.encode(messageID: messageIDs.next(.serverResponse, now: now), body: body))]
            case let .completed(result, body):
                state = .idle
                let stored = StoredAuthKey(authKey: result.authKey, salt: result.serverSalt, expiresIn: result.expiresIn,
                                           createdAt: Int32(clamping: Int64(now)))
                return [.storeKey(stored), .send(PlainMessage.encode(messageID: messageIDs.next(.serverResponse, now: now), body: body))]
            }
        } catch {
            return close()
        }
    }

    private mutating func close() -> [ServerConnectionAction] {
        state = .closed
        return [.close]
    }

    private func translate(_ events: [ServerSessionEvent]) -> [ServerConnectionAction] {
        events.compactMap { event in
            switch event {
            case let .send(packet): return .send(packet)
            case let .invoke(rpc): return .invoke(rpc)
            case let .disconnectAfter(seconds): return .disconnectAfter(seconds: seconds)
            case .dropped: return nil   // silently, as the spec says
            case let .claimSession(session): return .claimSession(session)
            }
        }
    }
}
