import CZlib
import TL

/// Wraps payloads in transport frames (the reverse of `FrameDecoder`).
public struct FrameEncoder: Sendable {
    public let framing: TransportFraming
    private var sequence: Int32 = 0

    public init(framing: TransportFraming) {
        self.framing = framing
    }

    /// Frames `payload` (a multiple of 4 bytes, except in padded intermediate, where `padding` (0–15 random
    /// bytes) is appended inside the frame).
    public mutating func encode(_ payload: [UInt8], padding: [UInt8] = []) -> [UInt8] {
        switch framing {
        case .abridged:
            let words = payload.count / 4
            let header: [UInt8] = words < 0x7f
                ? [UInt8(words)]
                : [0x7f, UInt8(truncatingIfNeeded: words), UInt8(truncatingIfNeeded: words >> 8), UInt8(truncatingIfNeeded: words >> 16)]
            return header + payload
        case .intermediate, .paddedIntermediate:
            var writer = TLWriter(capacity: payload.count + padding.count + 4)
            writer.writeUInt32(UInt32(payload.count + (framing == .paddedIntermediate ? padding.count : 0)))
            writer.writeRaw(payload)
            if framing == .paddedIntermediate { writer.writeRaw(padding) }
            return writer.bytes
        case .full:
            var writer = TLWriter(capacity: payload.count + 12)
            writer.writeUInt32(UInt32(payload.count + 12))
            writer.writeInt32(sequence)
            writer.writeRaw(payload)
            sequence &+= 1
            let checksum = writer.bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            writer.writeUInt32(checksum)
            return writer.bytes
        }
    }

    /// Frames `payload`, adding 0–15 random bytes of padding when the framing is padded intermediate.
    public mutating func encode<R: RandomNumberGenerator>(_ payload: [UInt8], using rng: inout R) -> [UInt8] {
        guard framing == .paddedIntermediate else { return encode(payload) }
        let padding = RandomBytes.make(Int.random(in: 0...15, using: &rng), using: &rng)
        return encode(payload, padding: padding)
    }

    /// A transport error frame: the negative code as the whole payload.
    public mutating func encode(error code: TransportErrorCode) -> [UInt8] {
        encode(code.payload)
    }
}
