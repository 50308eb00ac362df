import TL

/// What the client session wants done or reports.
public enum ClientSessionEvent: Sendable, Equatable {
    /// An encrypted packet to frame and send (a resent call or an acknowledgement).
    case send([UInt8])
    /// The answer to the call `token` returned by `ClientSession.call`.
    case result(token: Int, Result<[UInt8], RPCError>)
    /// The server started a new session (the sync engine fetches a difference after this).
    case sessionCreated
    /// A server-initiated object (an `Updates` push), gzip already unpacked.
    case update([UInt8])
    /// A call the server refused at the protocol level (`bad_msg_notification` other than time or salt).
    case rejected(token: Int, code: Int32)
    /// A packet that could not be decrypted with this key; dropped.
    case dropped(PacketError)
}

/// The client's half of an encrypted session, sans I/O (core.telegram.org/mtproto/description,
/// /service_messages_about_messages). It keeps unanswered calls so that `bad_server_salt` and time-related
/// `bad_msg_notification`s are handled by resending, corrects its clock from server msg_ids, unpacks containers
/// and gzip, acknowledges what it receives, and maps `rpc_result`/`rpc_error` back to the call that caused it.
public struct ClientSession<RNG: RandomNumberGenerator> {
    public let authKey: AuthKey
    public let sessionID: Int64
    public internal(set) var salt: Int64
    /// Seconds to add to local time to get server time.
    public internal(set) var timeOffset: Double
    private var rng: RNG
    var messageIDs = MessageIDGenerator()
    private var seqno = SequenceNumberGenerator()
    /// msg_id → (token, body) of calls not yet answered.
    var pending: [Int64: (token: Int, body: [UInt8])] = [:]
    private var nextToken = 1

    public init(authKey: AuthKey, salt: Int64, timeOffset: Double = 0, rng: RNG) {
        self.authKey = authKey
        self.salt = salt
        self.timeOffset = timeOffset
        self.rng = rng
        sessionID = Int64(bitPattern: self.rng.next())
    }

    /// The calls still waiting for an answer (resend them all after reconnecting with `resendPending`).
    public var pendingTokens: [Int] { pending.values.map(\.token).sorted() }

    /// Encrypts a call; the returned token identifies its `.result`.
    public mutating func call(_ body: [UInt8], now: Double) -> (token: Int, packet: [UInt8]) {
        let token = nextToken
        nextToken += 1
        return (token, seal(body, token: token, now: now))
    }

    /// Packets that resend every unanswered call with fresh msg_ids (after a reconnect).
    public mutating func resendPending(now: Double) -> [[UInt8]] {
        let calls = pending.sorted { $0.key < $1.key }
        pending.removeAll()
        return calls.map { seal($0.value.body, token: $0.value.token, now: now) }
    }

    mutating func seal(_ body: [UInt8], token: Int, now: Double) -> [UInt8] {
        let id = messageIDs.next(.client, now: now + timeOffset)
        pending[id] = (token, body)
        return encrypt(body, messageID: id, contentRelated: true)
    }

    private mutating func encrypt(_ body: [UInt8], messageID: Int64, contentRelated: Bool) -> [UInt8] {
        let message = DecryptedMessage(salt: salt, sessionID: sessionID, messageID: messageID,
                                       seqno: seqno.next(contentRelated: contentRelated), body: body)
        return EncryptedPacket.encrypt(message, authKey: authKey, direction: .clientToServer, using: &rng)
    }

    /// Handles one packet from the server.
    public mutating func receive(_ packet: [UInt8], now: Double) -> [ClientSessionEvent] {
        let message: DecryptedMessage
        do {
            message = try EncryptedPacket.decrypt(packet, authKey: authKey, direction: .serverToClient)
        } catch {
            return [.dropped(error)]
        }
        guard message.sessionID == sessionID else { return [.dropped(.unknownAuthKey(authKey.id))] }
        var events: [ClientSessionEvent] = []
        var acks: [Int64] = []
        handle(messageID: message.messageID, seqno: message.seqno, body: message.body, now: now, events: &events, acks: &acks)
        if !acks.isEmpty {
            let ack = MT.MsgsAck.msgsAck(.init(msgIds: acks)).serialized()
            events.append(.send(encrypt(ack, messageID: messageIDs.next(.client, now: now + timeOffset), contentRelated: false)))
        }
        return events
    }
}
