import Foundation

/// Appends TL-serialized values to a byte buffer.
///
/// TL is little-endian and 4-byte aligned: every value occupies a multiple of 4 bytes
/// (core.telegram.org/mtproto/serialize). The writer never fails and never traps: a `bytes`/`string` value over TL's
/// length limit (2^24 − 1 bytes) is cut to the limit and counted in `oversizedValues`. Callers bound what they
/// encode well below that (a server refuses such input, answers are sliced by bytes); the cut is the last line of
/// defence against a value that grew after decoding (a string repaired with U+FFFD), never a way to send one.
public struct TLWriter: Sendable {
    public private(set) var bytes: [UInt8]
    /// `bytes`/`string` values that were over TL's limit and were cut to it.
    public private(set) var oversizedValues = 0

    /// The largest `bytes`/`string` payload TL can frame: a 3-byte length.
    public static let maximumBytesLength = (1 << 24) - 1

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func writeUInt32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func writeInt32(_ value: Int32) {
        writeUInt32(UInt32(bitPattern: value))
    }

    public mutating func writeInt64(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func writeDouble(_ value: Double) {
        writeInt64(Int64(bitPattern: value.bitPattern))
    }

    /// `Bool` is a boxed type in TL: `boolTrue#997275b5` / `boolFalse#bc799737`.
    public mutating func writeBool(_ value: Bool) {
        writeUInt32(value ? TLBuiltinID.boolTrue : TLBuiltinID.boolFalse)
    }

    /// Writes raw bytes with no length prefix or padding (int128/int256 payloads, pre-serialized objects).
    public mutating func writeRaw<Bytes: Collection>(_ raw: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }

    /// Writes a TL `bytes`/`string` value: a 1-byte length (≤ 253) or 0xFE plus a 3-byte length,
    /// the payload, then zero padding to a multiple of 4.
    public mutating func writeBytes<Bytes: Collection>(_ payload: Bytes) where Bytes.Element == UInt8 {
        guard payload.count <= Self.maximumBytesLength else {
            oversizedValues += 1
            writeBytes(payload.prefix(Self.maximumBytesLength))
            return
        }
        let count = payload.count
        let header: Int
        if count <= 253 {
            bytes.append(UInt8(count))
            header = 1
        } else {
            bytes.append(254)
            bytes.append(UInt8(truncatingIfNeeded: count))
            bytes.append(UInt8(truncatingIfNeeded: count >> 8))
            bytes.append(UInt8(truncatingIfNeeded: count >> 16))
            header = 4
        }
        bytes.append(contentsOf: payload)
        let padding = (4 - (header + count) % 4) % 4
        for _ in 0..<padding { bytes.append(0) }
    }

    public mutating func writeString(_ value: String) {
        var value = value
        value.withUTF8 { writeBytes($0) }
    }

    /// Writes the boxed vector header: `vector#1cb5c415` and the element count.
    public mutating func writeVectorHeader(count: Int) {
        writeUInt32(TLBuiltinID.vector)
        writeInt32(Int32(truncatingIfNeeded: count))
    }

    /// Writes a boxed vector whose elements use a custom (usually bare) encoding.
    public mutating func writeVector<Element>(_ elements: [Element], _ encode: (inout TLWriter, Element) -> Void) {
        writeVectorHeader(count: elements.count)
        for element in elements { encode(&self, element) }
    }

    /// Writes a bare `vector<T>`: the count and the elements, no constructor id.
    public mutating func writeBareVector<Element>(_ elements: [Element], _ encode: (inout TLWriter, Element) -> Void) {
        writeInt32(Int32(truncatingIfNeeded: elements.count))
        for element in elements { encode(&self, element) }
    }
}

/// Constructor ids of the built-in types that the schema files only mention in comments.
public enum TLBuiltinID {
    public static let vector: UInt32 = 0x1cb5_c415
    public static let boolTrue: UInt32 = 0x9972_75b5
    public static let boolFalse: UInt32 = 0xbc79_9737
    public static let `true`: UInt32 = 0x3fed_d339
    public static let null: UInt32 = 0x5673_0bcc
    public static let gzipPacked: UInt32 = 0x3072_cfa1
    public static let msgContainer: UInt32 = 0x73f1_f8dc
    public static let rpcResult: UInt32 = 0xf35c_6d01
}
