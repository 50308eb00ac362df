import Foundation

/// Reads TL-serialized values from a byte array, checking every length against the remaining input.
///
/// Nothing here traps on malformed input: reads past the end throw `.truncated`, impossible lengths and
/// element counts throw `.badLength` before anything is allocated, and nested objects are limited to
/// `maximumDepth` levels so hostile input cannot exhaust the stack.
public struct TLReader: Sendable {
    /// Deep enough for every real object (rich text and page blocks nest a few dozen levels at most).
    public static let maximumDepth = 64

    public let bytes: [UInt8]
    public private(set) var offset: Int
    var depth = 0
    /// When set, a `string` that is not valid UTF-8 throws `.invalidUTF8` instead of being repaired. A server sets
    /// it for what clients send: repairing turns each bad byte into U+FFFD (3 bytes), so a string would grow on
    /// re-encoding, and what is stored must render back exactly as long as it arrived (never past TL's 16 MiB).
    public var rejectsInvalidUTF8: Bool

    public init(_ bytes: [UInt8], offset: Int = 0, rejectsInvalidUTF8: Bool = false) {
        self.bytes = bytes
        self.offset = offset
        self.rejectsInvalidUTF8 = rejectsInvalidUTF8
    }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset >= bytes.count }

    mutating func require(_ count: Int) throws(TLDecodingError) {
        if count > bytes.count - offset {
            throw .truncated(offset: offset, needed: count - (bytes.count - offset))
        }
    }

    public mutating func readUInt32() throws(TLDecodingError) -> UInt32 {
        try require(4)
        let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        offset += 4
        return UInt32(littleEndian: value)
    }

    public mutating func readInt32() throws(TLDecodingError) -> Int32 {
        Int32(bitPattern: try readUInt32())
    }

    public mutating func readInt64() throws(TLDecodingError) -> Int64 {
        try require(8)
        let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int64.self) }
        offset += 8
        return Int64(littleEndian: value)
    }

    public mutating func readDouble() throws(TLDecodingError) -> Double {
        Double(bitPattern: UInt64(bitPattern: try readInt64()))
    }

    /// Reads `count` raw bytes (no length prefix).
    public mutating func readRaw(count: Int) throws(TLDecodingError) -> ArraySlice<UInt8> {
        guard count >= 0 else { throw .badLength(offset: offset, length: count) }
        try require(count)
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Peeks at the next constructor id without consuming it.
    public func peekUInt32() throws(TLDecodingError) -> UInt32 {
        var copy = self
        return try copy.readUInt32()
    }

    public mutating func readBool() throws(TLDecodingError) -> Bool {
        let start = offset
        switch try readUInt32() {
        case TLBuiltinID.boolTrue: return true
        case TLBuiltinID.boolFalse: return false
        case let id: throw .unknownConstructor(id: id, offset: start, expectedType: "Bool")
        }
    }

    /// Reads the length prefix and returns the payload range; moves past the padding.
    mutating func readByteRange() throws(TLDecodingError) -> Range<Int> {
        let start = offset
        try require(1)
        var length = Int(bytes[offset])
        var header = 1
        if length == 254 {
            try require(4)
            length = Int(bytes[offset + 1]) | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]) << 16
            header = 4
        } else if length == 255 {
            throw .badLength(offset: start, length: 255)
        }
        let padded = (header + length + 3) & ~3
        guard padded <= bytes.count - start else { throw .badLength(offset: start, length: length) }
        offset = start + padded
        return (start + header)..<(start + header + length)
    }

    /// A TL `bytes` value as a slice of the input (no copy).
    public mutating func readByteSlice() throws(TLDecodingError) -> ArraySlice<UInt8> {
        bytes[try readByteRange()]
    }

    public mutating func readBytes() throws(TLDecodingError) -> Data {
        let range = try readByteRange()
        return bytes.withUnsafeBytes { Data(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// TL strings are UTF-8 `bytes`; invalid sequences decode as U+FFFD like every real client does, or throw
    /// `.invalidUTF8` when `rejectsInvalidUTF8` is set.
    public mutating func readString() throws(TLDecodingError) -> String {
        let start = offset
        let range = try readByteRange()
        let string = bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        // Repair only ever changes bytes (U+FFFD replaces each ill-formed subsequence), so equal bytes mean valid input.
        if rejectsInvalidUTF8, !string.utf8.elementsEqual(bytes[range]) {
            throw .invalidUTF8(offset: start)
        }
        return string
    }

    /// Reads an element count and checks it against the remaining input (every TL element takes ≥ 4 bytes).
    mutating func readCount() throws(TLDecodingError) -> Int {
        let start = offset
        let count = Int(try readInt32())
        guard count >= 0, count <= (bytes.count - offset) / 4 else {
            throw .badLength(offset: start, length: count)
        }
        return count
    }

    /// Reads `vector#1cb5c415`, the count and each element with `decode`.
    public mutating func readVector<Element>(
        _ decode: (inout TLReader) throws(TLDecodingError) -> Element
    ) throws(TLDecodingError) -> [Element] {
        let start = offset
        let id = try readUInt32()
        guard id == TLBuiltinID.vector else {
            throw .unknownConstructor(id: id, offset: start, expectedType: "Vector")
        }
        return try readBareVector(decode)
    }

    /// Reads a bare `vector<T>`: the count and each element with `decode`.
    public mutating func readBareVector<Element>(
        _ decode: (inout TLReader) throws(TLDecodingError) -> Element
    ) throws(TLDecodingError) -> [Element] {
        let count = try readCount()
        var elements: [Element] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try decode(&self)) }
        return elements
    }

    /// Marks entry into a nested boxed object; pair with `leaveNested()`.
    public mutating func enterNested() throws(TLDecodingError) {
        depth += 1
        if depth > TLReader.maximumDepth { throw .nestingTooDeep(offset: offset, limit: TLReader.maximumDepth) }
    }

    public mutating func leaveNested() {
        depth -= 1
    }

    /// Throws unless the whole input was consumed.
    public func expectEnd() throws(TLDecodingError) {
        if offset != bytes.count { throw .trailingBytes(offset: offset, count: bytes.count - offset) }
    }
}
