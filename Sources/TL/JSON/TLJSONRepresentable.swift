import Foundation

/// A value with a JSON form, as `docs/REPLAY-FORMAT.md` defines it for TL objects.
public protocol TLJSONRepresentable {
    func toJSON() -> TLJSON
    init(json: TLJSON, context: TLJSONContext) throws(TLJSONError)
    /// The value a missing required field reads as in scenario mode; nil for objects (they are always required).
    static var jsonZero: Self? { get }
}

extension TLJSONRepresentable {
    public static var jsonZero: Self? { nil }

    public init(json: TLJSON) throws(TLJSONError) {
        try self.init(json: json, context: .strict)
    }

    /// Parses JSON text into the value.
    public init(jsonText: String, context: TLJSONContext = .strict) throws(TLJSONError) {
        try self.init(json: TLJSON.parse(jsonText), context: context)
    }
}

extension TLJSON {
    /// The `"_"` name of a TL object.
    public func constructorName(_ context: TLJSONContext) throws(TLJSONError) -> String {
        guard case let .object(object) = self else { throw context.mismatch("a TL object") }
        guard case let .string(name)? = object["_"] else { throw .missingField(path: context.appending("_").pathDescription) }
        return name
    }

    /// The object's fields, after checking that `"_"` (when present) names `constructor`.
    public func constructorObject(_ constructor: String, _ context: TLJSONContext) throws(TLJSONError) -> TLJSONObject {
        guard case let .object(object) = self else { throw context.mismatch("a \(constructor) object") }
        if let name = object["_"], name != .string(constructor) {
            throw context.appending("_").mismatch("\"\(constructor)\"")
        }
        return object
    }
}

extension TLJSONObject {
    /// A required field; in scenario mode a missing scalar reads as its zero value.
    public func required<Value: TLJSONRepresentable>(_ key: String, _ context: TLJSONContext) throws(TLJSONError) -> Value {
        let fieldContext = context.appending(key)
        guard let json = self[key], json != .null else {
            if context.missingScalarsAreZero, let zero = Value.jsonZero { return zero }
            throw .missingField(path: fieldContext.pathDescription)
        }
        return try Value(json: json, context: fieldContext)
    }

    /// An optional (`flags.N?T`) field: absent or null means not set.
    public func optional<Value: TLJSONRepresentable>(_ key: String, _ context: TLJSONContext) throws(TLJSONError) -> Value? {
        guard let json = self[key], json != .null else { return nil }
        return try Value(json: json, context: context.appending(key))
    }

    /// A `flags.N?true` field: a boolean, absent means false.
    public func flag(_ key: String, _ context: TLJSONContext) throws(TLJSONError) -> Bool {
        switch self[key] {
        case nil, .null?: return false
        case let .bool(value)?: return value
        default: throw context.appending(key).mismatch("a boolean")
        }
    }
}

// MARK: - Primitive conformances

private let exactDoubleLimit: Int64 = 1 << 53

extension Int32: TLJSONRepresentable {
    public func toJSON() -> TLJSON { .int(Int64(self)) }
    public static var jsonZero: Int32? { 0 }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        let wide = try Int64(json: json, context: context)
        guard let value = Int32(exactly: wide) else { throw context.mismatch("a 32-bit integer") }
        self = value
    }
}

/// Longs are numbers below 2^53 in magnitude and decimal strings from there on; both forms are read.
extension Int64: TLJSONRepresentable {
    public func toJSON() -> TLJSON {
        (self > -exactDoubleLimit && self < exactDoubleLimit) ? .int(self) : .string(String(self))
    }

    public static var jsonZero: Int64? { 0 }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        switch json {
        case let .int(value): self = value
        case let .string(text):
            guard let value = Int64(text) else { throw context.mismatch("a 64-bit integer") }
            self = value
        case let .double(value):
            guard let exact = Int64(exactly: value) else { throw context.mismatch("a 64-bit integer") }
            self = exact
        default: throw context.mismatch("a 64-bit integer")
        }
    }
}

extension Double: TLJSONRepresentable {
    public func toJSON() -> TLJSON { .double(self) }
    public static var jsonZero: Double? { 0 }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        switch json {
        case let .double(value): self = value
        case let .int(value): self = Double(value)
        default: throw context.mismatch("a number")
        }
    }
}

extension String: TLJSONRepresentable {
    public func toJSON() -> TLJSON { .string(self) }
    public static var jsonZero: String? { "" }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        guard case let .string(value) = json else { throw context.mismatch("a string") }
        self = value
    }
}

/// TL `bytes` are base64 in JSON.
extension Data: TLJSONRepresentable {
    public func toJSON() -> TLJSON { .string(base64EncodedString()) }
    public static var jsonZero: Data? { Data() }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        guard case let .string(text) = json, let data = Data(base64Encoded: text) else {
            throw context.mismatch("base64 bytes")
        }
        self = data
    }
}

extension Bool: TLJSONRepresentable {
    public func toJSON() -> TLJSON { .bool(self) }
    public static var jsonZero: Bool? { false }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        guard case let .bool(value) = json else { throw context.mismatch("a boolean") }
        self = value
    }
}

extension Array: TLJSONRepresentable where Element: TLJSONRepresentable {
    public func toJSON() -> TLJSON { .array(map { $0.toJSON() }) }
    public static var jsonZero: [Element]? { [] }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        guard case let .array(values) = json else { throw context.mismatch("an array") }
        var result: [Element] = []
        result.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            result.append(try Element(json: value, context: context.appending("[\(index)]")))
        }
        self = result
    }
}

/// int128 and int256 are lowercase hex of their wire bytes.
extension TLInt128: TLJSONRepresentable {
    public func toJSON() -> TLJSON { .string(hexString(bytes)) }
    public static var jsonZero: TLInt128? { TLInt128(low: 0, high: 0) }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        guard case let .string(text) = json, let raw = bytesFromHex(text), let value = TLInt128(bytes: raw) else {
            throw context.mismatch("32 hex digits")
        }
        self = value
    }
}

extension TLInt256: TLJSONRepresentable {
    public func toJSON() -> TLJSON { .string(hexString(bytes)) }
    public static var jsonZero: TLInt256? { TLInt256(words: (0, 0, 0, 0)) }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        guard case let .string(text) = json, let raw = bytesFromHex(text), let value = TLInt256(bytes: raw) else {
            throw context.mismatch("64 hex digits")
        }
        self = value
    }
}

/// Lowercase hex of `bytes`.
public func hexString<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xf)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// Bytes from hex text (either case); nil for odd lengths or other characters.
public func bytesFromHex(_ text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
        guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
        out.append(high << 4 | low)
        index += 2
    }
    return out
}
