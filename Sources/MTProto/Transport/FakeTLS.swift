/// Fake-TLS, the MTProxy transport of `ee` secrets: the connection opens with what looks like a TLS 1.3 handshake to
/// the secret's domain and then carries the obfuscated2 stream inside TLS application-data records, so that it cannot
/// be told from HTTPS by its first bytes.
///
/// Layout of the secret: `0xee`, 16 key bytes, then the domain's bytes (the SNI the hello names).
///
/// The hello proves knowledge of the key without revealing it: its 32-byte `random` field is
/// HMAC-SHA256(key, hello with random zeroed) XOR (28 zero bytes ‖ unix time, 4 bytes little-endian). The server
/// recomputes the HMAC, so a hello made with another key, or replayed much later, is refused. The server answers
/// with a ServerHello, a ChangeCipherSpec and one application-data record of random bytes; its `random` is
/// HMAC-SHA256(key, client random ‖ that whole answer with random zeroed), which the client checks in turn. From then
/// on each direction is a sequence of application-data records (`17 03 03` + length) whose payloads concatenate to the
/// obfuscated2 stream keyed with the 16-byte key, in padded intermediate framing (as for `dd` secrets). Either side may
/// send ChangeCipherSpec records (`14 03 03 00 01 01`), which carry nothing and are skipped.
///
/// Sans I/O: time and randomness are passed in.
public enum FakeTLS {
    static let handshakeRecord: UInt8 = 0x16
    static let changeCipherSpecRecord: UInt8 = 0x14
    static let applicationDataRecord: UInt8 = 0x17
    /// Bytes of one application-data payload at most (TLS's 2^14).
    public static let maximumRecordPayload = 1 << 14
    /// How far the time in a client hello may be from the server's clock, in seconds.
    public static let timeTolerance: Int64 = 120
    /// The client hello's handshake body is padded to this many bytes, as browsers' are.
    static let clientHelloBodyLength = 512
    static let changeCipherSpec: [UInt8] = [0x14, 0x03, 0x03, 0x00, 0x01, 0x01]
    /// Offset of the 32-byte random in a hello record: record header (5), handshake header (4), version (2).
    static let randomOffset = 11

    /// An `ee` secret: the 16-byte key and the domain the hello names.
    public struct Secret: Equatable, Sendable {
        public let key: [UInt8]
        public let domain: [UInt8]

        /// Parses `0xee ‖ key(16) ‖ domain(1…253)`; nil for anything else.
        public init?(_ secret: [UInt8]) {
            guard secret.count >= 18, secret.count <= 17 + 253, secret[0] == 0xee else { return nil }
            key = Array(secret[1..<17])
            domain = Array(secret[17...])
        }

        /// The obfuscated2 secret inside the records: the key with the `dd` marker (padded intermediate).
        public var obfuscationSecret: [UInt8] { [0xdd] + key }
    }

    // MARK: client hello

    /// A client hello record naming `secret.domain`, its random field carrying the HMAC and `time`.
    public static func clientHello<R: RandomNumberGenerator>(secret: Secret, time: Int32, using rng: inout R) -> [UInt8] {
        var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 0, count: 32)   // version, random (filled in below)
        body += [0x20] + RandomBytes.make(32, using: &rng)                      // session id
        let suites: [UInt16] = [0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8]
        body += uint16(suites.count * 2) + suites.flatMap(uint16)
        body += [0x01, 0x00]                                                    // compression: null
        var extensions: [UInt8] = []
        let name = secret.domain
        extensions += tlsExtension(0x0000, uint16(name.count + 3) + [0x00] + uint16(name.count) + name)   // server_name
        extensions += tlsExtension(0x000a, uint16(4) + uint16(0x001d) + uint16(0x0017))               // groups
        extensions += tlsExtension(0x000d, uint16(6) + uint16(0x0403) + uint16(0x0804) + uint16(0x0401))   // signatures
        extensions += tlsExtension(0x002b, [0x04, 0x03, 0x04, 0x03, 0x03])                           // versions 1.3, 1.2
        extensions += tlsExtension(0x0033, uint16(36) + uint16(0x001d) + uint16(32) + RandomBytes.make(32, using: &rng))
        // padding extension: the handshake body (4-byte header + body) comes to clientHelloBodyLength
        let unpadded = 4 + body.count + 2 + extensions.count
        let padding = max(0, clientHelloBodyLength - unpadded - 4)
        extensions += tlsExtension(0x0015, [UInt8](repeating: 0, count: padding))
        body += uint16(extensions.count) + extensions
        let handshake = [0x01] + uint24(body.count) + body
        var record = [handshakeRecord, 0x03, 0x01] + uint16(handshake.count) + handshake
        let mac = MTProtoHash.hmacSHA256(key: secret.key, record)
        let stamp = withUnsafeBytes(of: time.littleEndian) { Array($0) }
        for index in 0..<32 {
            record[randomOffset + index] = mac[index] ^ (index < 28 ? 0 : stamp[index - 28])
        }
        return record
    }

    /// What the server learned from a valid client hello.
    public struct AcceptedHello: Equatable, Sendable {
        public let clientRandom: [UInt8]
        public let sessionID: [UInt8]
        /// Bytes of the buffer the hello record took.
        public let consumed: Int
    }

    /// Server side: checks the client hello at the start of `buffer`. nil while the record is incomplete.
    /// Throws `unknownProtocol` for anything that is not a hello made with `secret` within `timeTolerance` of `now`.
    public static func acceptClientHello(_ buffer: [UInt8], secret: Secret, now: Int64) throws(TransportError) -> AcceptedHello? {
        let prefix: [UInt8] = [handshakeRecord, 0x03, 0x01]
        guard buffer.count >= 5 else {
            if !buffer.elementsEqual(prefix.prefix(buffer.count)) { throw .unknownProtocol }
            return nil
        }
        guard Array(buffer[0..<3]) == prefix else { throw .unknownProtocol }
        let length = Int(buffer[3]) << 8 | Int(buffer[4])
        guard length >= 4 + 2 + 32 + 1 + 32, length <= maximumRecordPayload else { throw .unknownProtocol }
        guard buffer.count >= 5 + length else { return nil }
        var record = Array(buffer[0..<(5 + length)])
        guard record[5] == 0x01, record[randomOffset + 32] == 32 else { throw .unknownProtocol }
        let random = Array(record[randomOffset..<(randomOffset + 32)])
        for index in randomOffset..<(randomOffset + 32) { record[index] = 0 }
        let mac = MTProtoHash.hmacSHA256(key: secret.key, record)
        let difference = zip(random, mac).map { $0 ^ $1 }
        guard difference[0..<28].allSatisfy({ $0 == 0 }) else { throw .unknownProtocol }
        let time = Int64(Int32(littleEndian: difference[28..<32].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }))
        guard abs(time - now) <= timeTolerance else { throw .unknownProtocol }
        let sessionStart = randomOffset + 33
        return AcceptedHello(clientRandom: random, sessionID: Array(buffer[sessionStart..<(sessionStart + 32)]),
                             consumed: 5 + length)
    }

    // MARK: server hello

    /// The server's answer to an accepted hello: ServerHello, ChangeCipherSpec and an application-data record of
    /// random bytes, its random field proving the key.
    public static func serverHello<R: RandomNumberGenerator>(to hello: AcceptedHello, secret: Secret, using rng: inout R) -> [UInt8] {
        var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 0, count: 32) + [0x20] + hello.sessionID
        body += uint16(0x1301) + [0x00]                                            // TLS_AES_128_GCM_SHA256, no compression
        let extensions = tlsExtension(0x0033, uint16(0x001d) + uint16(32) + RandomBytes.make(32, using: &rng))
            + tlsExtension(0x002b, uint16(0x0304))
        body += uint16(extensions.count) + extensions
        let handshake = [0x02] + uint24(body.count) + body
        let filler = RandomBytes.make(1024 + Int(rng.next() % 3072), using: &rng)
        var answer = [handshakeRecord, 0x03, 0x03] + uint16(handshake.count) + handshake
        answer += changeCipherSpec + applicationDataHeader(filler.count) + filler
        let mac = MTProtoHash.hmacSHA256(key: secret.key, hello.clientRandom, answer)
        answer.replaceSubrange(randomOffset..<(randomOffset + 32), with: mac)
        return answer
    }

    /// Client side: checks the server's answer at the start of `buffer` against the hello the client sent.
    /// nil while incomplete; the number of bytes it took otherwise. Throws `badServerHello` for a wrong answer.
    public static func acceptServerHello(_ buffer: [UInt8], clientRandom: [UInt8], secret: Secret) throws(TransportError) -> Int? {
        var offset = 0
        for expected in [handshakeRecord, changeCipherSpecRecord, applicationDataRecord] {
            guard buffer.count >= offset + 5 else { return nil }
            guard buffer[offset] == expected, buffer[offset + 1] == 0x03, buffer[offset + 2] == 0x03 else { throw .badServerHello }
            let length = Int(buffer[offset + 3]) << 8 | Int(buffer[offset + 4])
            guard length <= maximumRecordPayload + 256 else { throw .badServerHello }
            offset += 5 + length
        }
        guard buffer.count >= offset else { return nil }
        guard offset >= randomOffset + 32 else { throw .badServerHello }
        var answer = Array(buffer[0..<offset])
        let random = Array(answer[randomOffset..<(randomOffset + 32)])
        answer.replaceSubrange(randomOffset..<(randomOffset + 32), with: [UInt8](repeating: 0, count: 32))
        guard MTProtoHash.hmacSHA256(key: secret.key, clientRandom, answer) == random else { throw .badServerHello }
        return offset
    }

    // MARK: encoding helpers

    static func applicationDataHeader(_ length: Int) -> [UInt8] {
        [applicationDataRecord, 0x03, 0x03] + uint16(length)
    }

    private static func tlsExtension(_ type: UInt16, _ data: [UInt8]) -> [UInt8] {
        uint16(type) + uint16(data.count) + data
    }

    private static func uint16(_ value: Int) -> [UInt8] { uint16(UInt16(truncatingIfNeeded: value)) }
    private static func uint16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
    private static func uint24(_ value: Int) -> [UInt8] { [UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)] }
}

/// The record layer after the hellos: wraps stream bytes into application-data records and unwraps the peer's
/// records back into stream bytes (skipping ChangeCipherSpec), keeping a partial record for the next call.
public struct FakeTLSRecords: Sendable {
    private var buffer: [UInt8] = []

    public init() {}

    /// Stream bytes in application-data records of at most `FakeTLS.maximumRecordPayload` bytes.
    public static func wrap(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 5 * (bytes.count / FakeTLS.maximumRecordPayload + 1))
        var start = 0
        while start < bytes.count {
            let end = min(start + FakeTLS.maximumRecordPayload, bytes.count)
            out += FakeTLS.applicationDataHeader(end - start)
            out += bytes[start..<end]
            start = end
        }
        return out
    }

    /// The stream bytes of the complete records so far. A record of another type, or longer than TLS allows, throws.
    public mutating func unwrap(_ bytes: [UInt8]) throws(TransportError) -> [UInt8] {
        buffer += bytes
        var out: [UInt8] = []
        var offset = 0
        while buffer.count - offset >= 5 {
            let type = buffer[offset]
            guard type == FakeTLS.applicationDataRecord || type == FakeTLS.changeCipherSpecRecord,
                  buffer[offset + 1] == 0x03, buffer[offset + 2] == 0x03 else { throw .unknownProtocol }
            let length = Int(buffer[offset + 3]) << 8 | Int(buffer[offset + 4])
            guard length <= FakeTLS.maximumRecordPayload + 256 else {
                throw .frameTooLarge(length: length, limit: FakeTLS.maximumRecordPayload + 256)
            }
            guard buffer.count - offset >= 5 + length else { break }
            if type == FakeTLS.applicationDataRecord { out += buffer[(offset + 5)..<(offset + 5 + length)] }
            offset += 5 + length
        }
        buffer.removeFirst(offset)
        return out
    }
}
