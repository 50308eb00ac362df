import CZlib

/// Splits a byte stream into transport frames. Bytes can arrive in any pieces (one at a time or many frames at
/// once); lengths are checked against `maximumFrameSize` before anything is buffered for them.
public struct FrameDecoder: Sendable {
    public let framing: TransportFraming
    public let maximumFrameSize: Int
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var expectedSequence: Int32 = 0

    public init(framing: TransportFraming, maximumFrameSize: Int = 1 << 20) {
        self.framing = framing
        self.maximumFrameSize = maximumFrameSize
    }

    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if readIndex > 4096 && readIndex * 2 > buffer.count {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedCount: Int { buffer.count - readIndex }

    /// The next complete frame's payload, or nil until more bytes arrive.
    public mutating func nextFrame() throws(TransportError) -> [UInt8]? {
        switch framing {
        case .abridged: return try nextAbridged()
        case .intermediate, .paddedIntermediate: return try nextIntermediate()
        case .full: return try nextFull()
        }
    }

    private func byte(_ offset: Int) -> Int { Int(buffer[readIndex + offset]) }

    private func littleEndianInt(at offset: Int) -> Int {
        byte(offset) | byte(offset + 1) << 8 | byte(offset + 2) << 16 | byte(offset + 3) << 24
    }

    private mutating func take(header: Int, length: Int) throws(TransportError) -> [UInt8]? {
        guard length <= maximumFrameSize else { throw .frameTooLarge(length: length, limit: maximumFrameSize) }
        guard bufferedCount >= header + length else { return nil }
        let start = readIndex + header
        readIndex = start + length
        return Array(buffer[start..<readIndex])
    }

    private mutating func nextAbridged() throws(TransportError) -> [UInt8]? {
        guard bufferedCount >= 1 else { return nil }
        // The high bit asks for a quick ack; it is not part of the length.
        let first = byte(0) & 0x7f
        if first < 0x7f { return try take(header: 1, length: first * 4) }
        guard bufferedCount >= 4 else { return nil }
        return try take(header: 4, length: (byte(1) | byte(2) << 8 | byte(3) << 16) * 4)
    }

    private mutating func nextIntermediate() throws(TransportError) -> [UInt8]? {
        guard bufferedCount >= 4 else { return nil }
        return try take(header: 4, length: littleEndianInt(at: 0) & 0x7fff_ffff)
    }

    private mutating func nextFull() throws(TransportError) -> [UInt8]? {
        guard bufferedCount >= 4 else { return nil }
        let total = littleEndianInt(at: 0)
        guard total >= 12, total % 4 == 0 else { throw .badLength(total) }
        guard total - 12 <= maximumFrameSize else { throw .frameTooLarge(length: total - 12, limit: maximumFrameSize) }
        guard bufferedCount >= total else { return nil }
        let crcOffset = readIndex + total - 4
        let expected = buffer.withUnsafeBufferPointer { pointer in
            UInt32(crc32(0, pointer.baseAddress! + readIndex, uInt(total - 4)))
        }
        let actual = UInt32(buffer[crcOffset]) | UInt32(buffer[crcOffset + 1]) << 8
            | UInt32(buffer[crcOffset + 2]) << 16 | UInt32(buffer[crcOffset + 3]) << 24
        guard expected == actual else { throw .checksumMismatch }
        let sequence = Int32(truncatingIfNeeded: littleEndianInt(at: 4))
        guard sequence == expectedSequence else { throw .sequenceMismatch(expected: expectedSequence, actual: sequence) }
        expectedSequence &+= 1
        let payload = Array(buffer[(readIndex + 8)..<crcOffset])
        readIndex += total
        return payload
    }
}
