/// The TCP framings of MTProto (core.telegram.org/mtproto/mtproto-transports).
public enum TransportFraming: Sendable, Equatable, CaseIterable {
    /// 1-byte length in 4-byte words (0x7f + 3 bytes for long frames); connection starts with 0xef.
    case abridged
    /// 4-byte little-endian length; connection starts with 0xeeeeeeee.
    case intermediate
    /// Intermediate with 0–15 random bytes of padding inside each frame; starts with 0xdddddddd.
    case paddedIntermediate
    /// Length, sequence number, payload, CRC-32; no start marker.
    case full

    /// The 4-byte protocol tag inside an obfuscated2 header (full has none: it cannot be obfuscated).
    public var obfuscationTag: [UInt8]? {
        switch self {
        case .abridged: return [0xef, 0xef, 0xef, 0xef]
        case .intermediate: return [0xee, 0xee, 0xee, 0xee]
        case .paddedIntermediate: return [0xdd, 0xdd, 0xdd, 0xdd]
        case .full: return nil
        }
    }

    /// The bytes a plain (non-obfuscated) connection starts with.
    public var plainPrefix: [UInt8] {
        switch self {
        case .abridged: return [0xef]
        case .intermediate: return [0xee, 0xee, 0xee, 0xee]
        case .paddedIntermediate: return [0xdd, 0xdd, 0xdd, 0xdd]
        case .full: return []
        }
    }
}

/// Why a byte stream is not valid transport framing. The connection is closed after any of these.
public enum TransportError: Error, Equatable, Sendable {
    case frameTooLarge(length: Int, limit: Int)
    case badLength(Int)
    case checksumMismatch
    case sequenceMismatch(expected: Int32, actual: Int32)
    /// The first bytes match no transport (or an obfuscated header carries no known tag).
    case unknownProtocol
    /// An MTProxy secret that is not 16 bytes, 17 with the `dd` prefix, or `ee`, 16 bytes and a domain.
    case badSecret
    /// A fake-TLS proxy answered with something other than a server hello proving the secret's key.
    case badServerHello
}

/// The negative codes a server sends instead of a frame payload (core.telegram.org/mtproto/mtproto-transports#transport-errors).
public enum TransportErrorCode: Int32, Sendable {
    /// The auth key is unknown (or a message could not be decrypted).
    case authKeyNotFound = -404
    /// Too many connections or requests from this address.
    case flood = -429
    /// The connection reached the wrong data center.
    case wrongDC = -444

    /// The frame payload that carries the code: the negative int32, little-endian.
    public var payload: [UInt8] { withUnsafeBytes(of: rawValue.littleEndian) { Array($0) } }
}
