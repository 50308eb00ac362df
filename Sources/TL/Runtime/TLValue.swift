import Foundation

/// A value with a TL encoding and a JSON form.
///
/// `encode`/`decode` use the value's *natural* encoding: the one it has as a field of type `T` or as a
/// `Vector<T>` element. Primitives (`int`, `long`, `double`, `string`, `bytes`, `int128`, `int256`) are
/// bare, `Bool` and every generated type are boxed (constructor id first), arrays are boxed vectors.
public protocol TLValue: Sendable, Hashable, TLJSONRepresentable {
    func encode(to writer: inout TLWriter)
    static func decode(from reader: inout TLReader) throws(TLDecodingError) -> Self
}

/// A boxed TL object: a generated type (enum over its constructors), a constructor, or a function call.
public protocol TLObject: TLValue {
    /// The id of the constructor this value was built with.
    var constructorID: UInt32 { get }
    /// The constructor's TL name, e.g. `updates.differenceSlice`.
    var constructorName: String { get }
}

/// One TL constructor (or function): a struct whose fields are the constructor's arguments.
///
/// The bare encoding omits the constructor id (`%T` and lowercase type references in the schema); the
/// boxed encoding (`encode`/`decode`) writes and checks it.
public protocol TLConstructor: TLObject {
    static var constructorID: UInt32 { get }
    static var constructorName: String { get }
    func encodeBare(to writer: inout TLWriter)
    static func decodeBare(from reader: inout TLReader) throws(TLDecodingError) -> Self
}

/// A TL function: its arguments are serialized like a constructor, its answer is a `Result`.
public protocol TLFunction: TLObject {
    associatedtype Result: TLValue
}

extension TLConstructor {
    public var constructorID: UInt32 { Self.constructorID }
    public var constructorName: String { Self.constructorName }

    public func encode(to writer: inout TLWriter) {
        writer.writeUInt32(Self.constructorID)
        encodeBare(to: &writer)
    }

    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> Self {
        let start = reader.offset
        let id = try reader.readUInt32()
        guard id == constructorID else {
            throw .unknownConstructor(id: id, offset: start, expectedType: constructorName)
        }
        try reader.enterNested()
        defer { reader.leaveNested() }
        return try decodeBare(from: &reader)
    }
}

extension TLValue {
    /// The value's natural TL encoding as bytes.
    public func serialized() -> [UInt8] {
        var writer = TLWriter()
        encode(to: &writer)
        return writer.bytes
    }

    /// Decodes a value that must fill `bytes` exactly.
    public static func deserialize<Bytes: Sequence>(_ bytes: Bytes) throws(TLDecodingError) -> Self where Bytes.Element == UInt8 {
        var reader = TLReader(Array(bytes))
        let value = try decode(from: &reader)
        try reader.expectEnd()
        return value
    }
}

// MARK: - Primitive conformances (bare)

extension Int32: TLValue {
    public func encode(to writer: inout TLWriter) { writer.writeInt32(self) }
    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> Int32 { try reader.readInt32() }
}

extension Int64: TLValue {
    public func encode(to writer: inout TLWriter) { writer.writeInt64(self) }
    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> Int64 { try reader.readInt64() }
}

extension Double: TLValue {
    public func encode(to writer: inout TLWriter) { writer.writeDouble(self) }
    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> Double { try reader.readDouble() }
}

extension String: TLValue {
    public func encode(to writer: inout TLWriter) { writer.writeString(self) }
    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> String { try reader.readString() }
}

/// TL `bytes`.
extension Data: TLValue {
    public func encode(to writer: inout TLWriter) { writer.writeBytes(self) }
    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> Data { try reader.readBytes() }
}

extension TLInt128: TLValue {
    public func encode(to writer: inout TLWriter) {
        writer.writeInt64(Int64(bitPattern: low))
        writer.writeInt64(Int64(bitPattern: high))
    }

    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> TLInt128 {
        let low = UInt64(bitPattern: try reader.readInt64())
        return TLInt128(low: low, high: UInt64(bitPattern: try reader.readInt64()))
    }
}

extension TLInt256: TLValue {
    public func encode(to writer: inout TLWriter) {
        writer.writeInt64(Int64(bitPattern: words.0))
        writer.writeInt64(Int64(bitPattern: words.1))
        writer.writeInt64(Int64(bitPattern: words.2))
        writer.writeInt64(Int64(bitPattern: words.3))
    }

    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> TLInt256 {
        let w0 = UInt64(bitPattern: try reader.readInt64())
        let w1 = UInt64(bitPattern: try reader.readInt64())
        let w2 = UInt64(bitPattern: try reader.readInt64())
        return TLInt256(words: (w0, w1, w2, UInt64(bitPattern: try reader.readInt64())))
    }
}

/// `Bool` is boxed: `boolTrue#997275b5` / `boolFalse#bc799737`.
extension Bool: TLValue {
    public func encode(to writer: inout TLWriter) { writer.writeBool(self) }
    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> Bool { try reader.readBool() }
}

/// `Vector<T>`: boxed `vector#1cb5c415`, a count, then each element in its natural encoding.
extension Array: TLValue where Element: TLValue {
    public func encode(to writer: inout TLWriter) {
        writer.writeVectorHeader(count: count)
        for element in self { element.encode(to: &writer) }
    }

    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> [Element] {
        try reader.readVector { (reader: inout TLReader) throws(TLDecodingError) in try Element.decode(from: &reader) }
    }
}
