import TL

/// What the client session wants done or reports.
public enum ClientSessionEvent: Sendable, Equatable {
    /// An encrypted packet to frame and send (a resent call).
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
///
/// Acknowledgements are owed, not sent at once: they ride in the next packet the client sends (calls and acks in one
/// `msg_container`), and `flushAcknowledgements` sends them alone when nothing else is going out — the driver calls
/// it after a short delay. Several calls queued together also leave as one container. One packet instead of one per
/// call and one per received message halves the packets of a busy session
/// (core.telegram.org/mtproto/service_messages_about_messages#acknowledgment-of-receipt).
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
    /// msg_id of a container sent → msg_ids of the calls in it: a notice about the container (a wrong salt)
    /// concerns each of them. Swept of containers whose calls were all answered when it grows past `containerSweepAt`.
    var containers: [Int64: [Int64]] = [:]
    var containerSweepAt = 1_024
    /// msg_ids of received content-related messages not yet acknowledged.
    var owedAcknowledgements: [Int64] = []
    private var nextToken = 1
    /// At most this many messages (calls and one ack) and about this many bytes go in one container.
    public static var containerLimit: (messages: Int, bytes: Int) { MessageContainer.sendLimit }

    public init(authKey: AuthKey, salt: Int64, timeOffset: Double = 0, rng: RNG) {
        self.authKey = authKey
        self.salt = salt
        self.timeOffset = timeOffset
        self.rng = rng
        sessionID = Int64(bitPattern: self.rng.next())
    }

    /// The calls still waiting for an answer (resend them all after reconnecting with `resendPending`).
    public var pendingTokens: [Int] { pending.values.map(\.token).sorted() }

    /// Whether received messages wait for an acknowledgement (`flushAcknowledgements`).
    public var owesAcknowledgements: Bool { !owedAcknowledgements.isEmpty }
    public var owedAcknowledgementCount: Int { owedAcknowledgements.count }

    /// Encrypts a call, with the acknowledgements owed; the returned token identifies its `.result`.
    public mutating func call(_ body: [UInt8], now: Double) -> (token: Int, packet: [UInt8]) {
        let (tokens, packet) = send(calls: [body], now: now)
        return (tokens[0], packet)
    }

    /// Encrypts several calls (and the acknowledgements owed) into one packet, a `msg_container` when it holds more
    /// than one message. The caller keeps each packet within `containerLimit`, one place left for the acknowledgement
    /// (`MessageContainer.groups(sizes:reserving: 1)`).
    public mutating func send(calls bodies: [[UInt8]], now: Double) -> (tokens: [Int], packet: [UInt8]) {
        let calls = bodies.map { body -> (token: Int, body: [UInt8]) in
            defer { nextToken += 1 }
            return (nextToken, body)
        }
        return (calls.map(\.token), seal(calls, now: now))
    }

    /// The owed acknowledgements alone, or nil when none are owed.
    public mutating func flushAcknowledgements(now: Double) -> [UInt8]? {
        owesAcknowledgements ? seal([], now: now) : nil
    }

    /// Packets that resend every unanswered call with fresh msg_ids (after a reconnect).
    public mutating func resendPending(now: Double) -> [[UInt8]] {
        let calls = pending.sorted { $0.key < $1.key }
        pending.removeAll()
        containers.removeAll()
        return calls.map { seal([$0.value], now: now) }
    }

    /// One packet for `calls` and the owed acknowledgements; calls are remembered until answered.
    mutating func seal(_ calls: [(token: Int, body: [UInt8])], now: Double) -> [UInt8] {
        var messages: [ContainedMessage] = []
        for call in calls {
            let id = messageIDs.next(.client, now: now + timeOffset)
            pending[id] = call
            messages.append(ContainedMessage(messageID: id, seqno: seqno.next(contentRelated: true), body: call.body))
        }
        if owesAcknowledgements {
            let ack = MT.MsgsAck.msgsAck(.init(msgIds: owedAcknowledgements)).serialized()
            owedAcknowledgements.removeAll()
            messages.append(ContainedMessage(messageID: messageIDs.next(.client, now: now + timeOffset),
                                             seqno: seqno.next(contentRelated: false), body: ack))
        }
        if messages.count == 1 { return encrypt(messages[0]) }
        // The container's msg_id is above those inside it; it is not content-related.
        let containerID = messageIDs.next(.client, now: now + timeOffset)
        if calls.count > 0 {
            if containers.count >= containerSweepAt {
                containers = containers.filter { $0.value.contains { pending[$0] != nil } }
                // Swept again only once it has doubled: calls a server never answers stay pending, and sweeping at a
                // fixed size would then scan every container on every send.
                containerSweepAt = max(1_024, 2 * containers.count)
            }
            containers[containerID] = messages.prefix(calls.count).map(\.messageID)
        }
        return encrypt(ContainedMessage(messageID: containerID, seqno: seqno.next(contentRelated: false),
                                        body: MessageContainer.encode(messages)))
    }

    private mutating func encrypt(_ message: ContainedMessage) -> [UInt8] {
        EncryptedPacket.encrypt(DecryptedMessage(salt: salt, sessionID: sessionID, messageID: message.messageID,
                                                 seqno: message.seqno, body: message.body),
                                authKey: authKey, direction: .clientToServer, using: &rng)
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
        var inflateBudget = GzipPacked.maximumUnpackedSize   // one budget for everything packed in this packet
        handle(messageID: message.messageID, seqno: message.seqno, body: message.body, now: now, events: &events,
               inflateBudget: &inflateBudget)
        return events
    }
}
