import CZlib

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
        case .intermediate:
            return littleEndian(UInt32(payload.count)) + payload
        case .paddedIntermediate:
            return littleEndian(UInt32(payload.count + padding.count)) + payload + padding
        case .full:
            var frame = littleEndian(UInt32(payload.count + 12)) + littleEndian(UInt32(bitPattern: sequence)) + payload
            sequence &+= 1
            let checksum = frame.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            frame += littleEndian(checksum)
            return frame
        }
    }

    /// A transport error frame: the negative code as the whole payload.
    public mutating func encode(error code: TransportErrorCode) -> [UInt8] {
        encode(littleEndian(UInt32(bitPattern: code.rawValue)))
    }

    private func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
         UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
    }
}
