/// obfuscated2 (core.telegram.org/mtproto/mtproto-transports#transport-obfuscation): a 64-byte random header whose
/// bytes 8..56 give the AES-256-CTR keys of both directions, so the stream looks random to an observer. With an
/// MTProxy secret each key is SHA256(key ‖ secret).
public enum Obfuscation {
    /// The two key streams of one side of a connection.
    public struct Streams {
        public let encryptor: AES256CTR
        public let decryptor: AES256CTR
    }

    /// The 16-byte key secret of an MTProxy secret: 16 bytes plain, or 17 with the `dd` prefix (which also demands
    /// padded intermediate framing).
    public static func keySecret(_ secret: [UInt8]?) throws(TransportError) -> (key: [UInt8], requiresPadding: Bool)? {
        guard let secret else { return nil }
        switch secret.count {
        case 16: return (secret, false)
        case 17 where secret[0] == 0xdd: return (Array(secret[1...]), true)
        default: throw .badSecret
        }
    }

    /// Key and IV for the header slice (forward for one direction, reversed for the other).
    static func keyAndIV(_ slice: [UInt8], secret: [UInt8]?) -> (key: [UInt8], iv: [UInt8]) {
        let key = Array(slice[0..<32])
        return (secret.map { MTProtoHash.sha256(key, $0) } ?? key, Array(slice[32..<48]))
    }

    /// Client side: a random header announcing `framing` (and `dc`, negative for test DCs), the bytes to send first,
    /// and the client's streams. The header never starts like another protocol.
    public static func clientHeader<R: RandomNumberGenerator>(
        framing: TransportFraming, dc: Int16, secret: [UInt8]? = nil, using rng: inout R
    ) throws(TransportError) -> (bytes: [UInt8], streams: Streams) {
        guard let tag = framing.obfuscationTag else { throw .unknownProtocol }
        let keySecret = try keySecret(secret)
        if keySecret?.requiresPadding == true, framing != .paddedIntermediate { throw .badSecret }
        var header: [UInt8]
        repeat {
            header = RandomBytes.make(64, using: &rng)
        } while !isAcceptableClientHeader(header)
        header.replaceSubrange(56..<60, with: tag)
        header[60] = UInt8(truncatingIfNeeded: dc)
        header[61] = UInt8(truncatingIfNeeded: dc >> 8)
        return try clientStreams(initBytes: header, secret: keySecret?.key)
    }

    /// The CTR streams keyed by header bytes 8..<56: forward is client → server, backward (reversed bytes) the other way.
    static func streams(header: [UInt8], secret: [UInt8]?) throws(TransportError) -> (forward: AES256CTR, backward: AES256CTR) {
        let forward = keyAndIV(Array(header[8..<56]), secret: secret)
        let backward = keyAndIV(Array(header[8..<56].reversed()), secret: secret)
        do {
            return (try AES256CTR(key: forward.key, iv: forward.iv), try AES256CTR(key: backward.key, iv: backward.iv))
        } catch { throw .badSecret }
    }

    /// The client's streams and the header it sends, for given random `initBytes` (tag already in place).
    public static func clientStreams(initBytes: [UInt8], secret: [UInt8]?) throws(TransportError) -> (bytes: [UInt8], streams: Streams) {
        let (encryptor, decryptor) = try streams(header: initBytes, secret: secret)
        let encrypted = encryptor.apply(initBytes)
        return (Array(initBytes[0..<56]) + Array(encrypted[56..<64]), Streams(encryptor: encryptor, decryptor: decryptor))
    }

    /// Server side: reads a client's 64-byte header. Returns the framing it announced, its DC field and the
    /// server's streams (positioned after the header).
    public static func acceptHeader(_ header: [UInt8], secret: [UInt8]? = nil) throws(TransportError) -> (framing: TransportFraming, dc: Int16, streams: Streams) {
        guard header.count == 64 else { throw .badLength(header.count) }
        let keySecret = try keySecret(secret)
        let (decryptor, encryptor) = try streams(header: header, secret: keySecret?.key)
        let decrypted = decryptor.apply(header)
        let tag = Array(decrypted[56..<60])
        guard let framing = TransportFraming.allCases.first(where: { $0.obfuscationTag == tag }) else { throw .unknownProtocol }
        if keySecret?.requiresPadding == true, framing != .paddedIntermediate { throw .unknownProtocol }
        let dc = Int16(bitPattern: UInt16(decrypted[60]) | UInt16(decrypted[61]) << 8)
        return (framing, dc, Streams(encryptor: encryptor, decryptor: decryptor))
    }

    /// A client header must not look like a plain transport or another protocol (the spec's list).
    static func isAcceptableClientHeader(_ header: [UInt8]) -> Bool {
        if header[0] == 0xef { return false }
        let first = Array(header[0..<4])
        let forbidden: [[UInt8]] = [
            Array("HEAD".utf8), Array("POST".utf8), Array("GET ".utf8), Array("OPTI".utf8),
            [0xdd, 0xdd, 0xdd, 0xdd], [0xee, 0xee, 0xee, 0xee], [0x16, 0x03, 0x01, 0x02],
        ]
        if forbidden.contains(first) { return false }
        return header[4..<8].contains { $0 != 0 }
    }
}

/// How a server tells the transport of a new connection from its first bytes
/// (core.telegram.org/mtproto/mtproto-transports: abridged starts with 0xef, intermediate with 0xeeeeeeee, padded with
/// 0xdddddddd; anything else is the full transport or an obfuscated2 header).
public enum TransportDetection: Equatable, Sendable {
    case needMoreBytes
    /// A plain framing; `consumed` bytes of marker precede the first frame.
    case plain(TransportFraming, consumed: Int)
    /// A 64-byte obfuscated2 header follows.
    case obfuscated

    public static func detect(_ prefix: [UInt8]) -> TransportDetection {
        guard let first = prefix.first else { return .needMoreBytes }
        if first == 0xef { return .plain(.abridged, consumed: 1) }
        guard prefix.count >= 4 else { return .needMoreBytes }
        let head = Array(prefix[0..<4])
        if head == [0xee, 0xee, 0xee, 0xee] { return .plain(.intermediate, consumed: 4) }
        if head == [0xdd, 0xdd, 0xdd, 0xdd] { return .plain(.paddedIntermediate, consumed: 4) }
        guard prefix.count >= 8 else { return .needMoreBytes }
        if prefix[4..<8].allSatisfy({ $0 == 0 }) { return .plain(.full, consumed: 0) }
        return .obfuscated
    }
}

/// The three kinds of MTProxy secret (core.telegram.org/mtproto/mtproto-transports#transport-obfuscation).
public enum ProxySecretKind: Equatable, Sendable {
    /// 16 bytes: obfuscated2 in any framing.
    case plain
    /// `dd` + 16 bytes: obfuscated2 in padded intermediate framing.
    case paddedIntermediate
    /// `ee` + 16 bytes + a domain: fake-TLS (`FakeTLS`), padded intermediate inside.
    case fakeTLS

    /// nil for bytes that are none of the three.
    public init?(_ secret: [UInt8]) {
        switch secret.count {
        case 16: self = .plain
        case 17 where secret[0] == 0xdd: self = .paddedIntermediate
        default:
            guard FakeTLS.Secret(secret) != nil else { return nil }
            self = .fakeTLS
        }
    }

    /// The framing a secret of this kind is used with: padded intermediate where the kind demands it.
    public var framing: TransportFraming { self == .plain ? .intermediate : .paddedIntermediate }

    /// What a valid secret looks like, for error messages.
    public static let expectedForm = "32 hex digits, 34 starting with dd, or ee, 32 hex digits and a domain name in hex"
}
