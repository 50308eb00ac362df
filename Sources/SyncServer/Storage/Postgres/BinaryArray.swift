import NIOCore
import PostgresNIO

/// A one-dimensional array parameter (`bigint[]`, `bytea[]`…, spread into rows by `unnest`) in PostgreSQL's binary
/// array format, as `array_recv` reads it: the number of dimensions (0 for an empty array), a has-NULL flag, the
/// element type's oid, then the dimension's length and lower bound (1), then each element as its byte length and its
/// bytes in the element type's binary format.
///
/// postgres-nio encodes arrays element by element through `ByteBuffer`'s checked writes: with the 47 arrays of a
/// batch's `FlushRows`, that took about 9% of a sending process's CPU even once specialized, much of it in
/// exclusivity checks (`perf`, `bench server --postgres`). Here the elements' total size is computed first and they
/// are stored in one pass into memory reserved once.
struct BinaryArray<Element: BinaryArrayElement>: PostgresDynamicTypeEncodable {
    let elements: [Element]

    var psqlType: PostgresDataType { Element.arrayType }
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(0, as: Int32.self)
        buffer.writeInteger(Element.elementType.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        let size = elements.reduce(0) { $0 + 4 + $1.binarySize }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
            var offset = 0
            for element in elements {
                let length = element.binarySize
                raw.storeBytes(of: Int32(length).bigEndian, toByteOffset: offset, as: Int32.self)
                element.store(into: UnsafeMutableRawBufferPointer(rebasing: raw[(offset + 4)..<(offset + 4 + length)]))
                offset += 4 + length
            }
            return size
        }
    }
}

/// An element type of `BinaryArray`: its binary format's size and bytes.
protocol BinaryArrayElement {
    static var elementType: PostgresDataType { get }
    static var arrayType: PostgresDataType { get }
    var binarySize: Int { get }
    /// Stores exactly `binarySize` bytes at the start of `raw`.
    func store(into raw: UnsafeMutableRawBufferPointer)
}

/// `bigint`, `integer`, `smallint`: big-endian, in their own size.
protocol BinaryArrayInteger: FixedWidthInteger, BinaryArrayElement {}

extension BinaryArrayInteger {
    var binarySize: Int { MemoryLayout<Self>.size }
    func store(into raw: UnsafeMutableRawBufferPointer) { raw.storeBytes(of: bigEndian, as: Self.self) }
}

extension Int64: BinaryArrayInteger {
    static var elementType: PostgresDataType { .int8 }
    static var arrayType: PostgresDataType { .int8Array }
}

extension Int32: BinaryArrayInteger {
    static var elementType: PostgresDataType { .int4 }
    static var arrayType: PostgresDataType { .int4Array }
}

extension Int16: BinaryArrayInteger {
    static var elementType: PostgresDataType { .int2 }
    static var arrayType: PostgresDataType { .int2Array }
}

extension Bool: BinaryArrayElement {
    static var elementType: PostgresDataType { .bool }
    static var arrayType: PostgresDataType { .boolArray }
    var binarySize: Int { 1 }
    func store(into raw: UnsafeMutableRawBufferPointer) { raw.storeBytes(of: self ? 1 : 0, as: UInt8.self) }
}

/// `bytea`: the bytes as they are.
extension ByteBuffer: BinaryArrayElement {
    static var elementType: PostgresDataType { .bytea }
    static var arrayType: PostgresDataType { .byteaArray }
    var binarySize: Int { readableBytes }
    func store(into raw: UnsafeMutableRawBufferPointer) {
        withUnsafeReadableBytes { bytes in raw.copyMemory(from: bytes) }
    }
}

/// `text`: the UTF-8 bytes.
extension String: BinaryArrayElement {
    static var elementType: PostgresDataType { .text }
    static var arrayType: PostgresDataType { .textArray }
    var binarySize: Int { utf8.count }
    func store(into raw: UnsafeMutableRawBufferPointer) {
        var text = self
        text.withUTF8 { bytes in raw.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
    }
}
