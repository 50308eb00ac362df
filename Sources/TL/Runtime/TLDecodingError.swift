/// Why a byte sequence is not a valid TL encoding. Decoding never traps: every malformed input ends in one of these.
public enum TLDecodingError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The input ended `needed` bytes early while reading at `offset`.
    case truncated(offset: Int, needed: Int)
    /// A constructor id that the expected type does not have.
    case unknownConstructor(id: UInt32, offset: Int, expectedType: String)
    /// A length or element count that cannot fit in the remaining input (or is negative).
    case badLength(offset: Int, length: Int)
    /// Objects nested deeper than `TLReader.maximumDepth`.
    case nestingTooDeep(offset: Int, limit: Int)
    /// Bytes left over after a value that should have filled the whole input.
    case trailingBytes(offset: Int, count: Int)
    /// A `string` that is not valid UTF-8, read by a reader that refuses them (`TLReader.rejectsInvalidUTF8`).
    case invalidUTF8(offset: Int)

    public var description: String {
        switch self {
        case let .truncated(offset, needed):
            return "TL input truncated at offset \(offset): \(needed) more byte(s) needed"
        case let .unknownConstructor(id, offset, expectedType):
            return "unknown constructor 0x\(String(id, radix: 16)) at offset \(offset) for type \(expectedType)"
        case let .badLength(offset, length):
            return "bad length \(length) at offset \(offset)"
        case let .nestingTooDeep(offset, limit):
            return "objects nested deeper than \(limit) at offset \(offset)"
        case let .trailingBytes(offset, count):
            return "\(count) trailing byte(s) after the value at offset \(offset)"
        case let .invalidUTF8(offset):
            return "string at offset \(offset) is not valid UTF-8"
        }
    }
}
