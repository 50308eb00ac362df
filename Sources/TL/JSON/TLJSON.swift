import Foundation

/// A JSON value as the replay format and `--json` output use it (`docs/REPLAY-FORMAT.md`):
/// integers stay exact 64-bit numbers, objects keep their key order when written.
public enum TLJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([TLJSON])
    case object(TLJSONObject)

    /// Parses JSON text. Integers that fit in Int64 stay exact; other numbers become doubles.
    public static func parse(_ text: String) throws(TLJSONError) -> TLJSON {
        try parse(Data(text.utf8))
    }

    public static func parse(_ data: Data) throws(TLJSONError) -> TLJSON {
        try TLJSONParser.parse([UInt8](data))
    }

    /// Compact JSON text; object keys in insertion order (`"_"` first for TL objects).
    public func serialized() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .int(value): out += String(value)
        case let .double(value):
            // JSON has no inf/nan; TL doubles from the wire can hold them, so they are written as null.
            out += value.isFinite ? "\(value)" : "null"
        case let .string(value): TLJSON.writeString(value, to: &out)
        case let .array(values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += ", " }
                value.write(to: &out)
            }
            out += "]"
        case let .object(object):
            out += "{"
            for (index, (key, value)) in object.fields.enumerated() {
                if index > 0 { out += ", " }
                TLJSON.writeString(key, to: &out)
                out += ": "
                value.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension TLJSON: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([TLJSON].self) {
            self = .array(value)
        } else {
            let dictionary = try container.decode([String: TLJSON].self)
            self = .object(TLJSONObject(fields: dictionary.sorted { $0.key < $1.key }))
        }
    }
}

/// A JSON object that keeps the order its fields were added in. Objects are small (≤ ~50 keys), so
/// lookups are linear.
public struct TLJSONObject: Sendable, Hashable {
    public private(set) var fields: [(String, TLJSON)]

    public init(fields: [(String, TLJSON)] = []) {
        self.fields = fields
    }

    /// An object for a TL constructor: `{"_": name}`.
    public init(constructor name: String) {
        fields = [("_", .string(name))]
    }

    /// Appends a field without looking for an existing one with the same key (generated code adds each once).
    public mutating func append(_ key: String, _ value: TLJSON) {
        fields.append((key, value))
    }

    public subscript(key: String) -> TLJSON? {
        get { fields.first { $0.0 == key }?.1 }
        set {
            if let index = fields.firstIndex(where: { $0.0 == key }) {
                if let newValue { fields[index].1 = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((key, newValue))
            }
        }
    }

    public static func == (lhs: TLJSONObject, rhs: TLJSONObject) -> Bool {
        lhs.fields.count == rhs.fields.count && lhs.fields.allSatisfy { rhs[$0.0] == $0.1 }
    }

    /// Order-independent, like `==`.
    public func hash(into hasher: inout Hasher) {
        for (key, value) in fields.sorted(by: { $0.0 < $1.0 }) {
            hasher.combine(key)
            hasher.combine(value)
        }
    }
}

/// Why a JSON value does not describe the expected TL value. `path` names the field, e.g. `events[3].push.updates[0].pts`.
public enum TLJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidJSON(String)
    case missingField(path: String)
    case typeMismatch(path: String, expected: String)
    case unknownConstructor(name: String, path: String)

    public var description: String {
        switch self {
        case let .invalidJSON(reason): return "invalid JSON: \(reason)"
        case let .missingField(path): return "missing field \(path)"
        case let .typeMismatch(path, expected): return "field \(path): expected \(expected)"
        case let .unknownConstructor(name, path): return "unknown constructor \"\(name)\" at \(path)"
        }
    }
}

/// Where a JSON value sits and how strictly to read it.
public struct TLJSONContext: Sendable {
    public var path: [String]
    /// The replay format's rule: a missing required scalar reads as its zero value (0, "", false, []).
    public var missingScalarsAreZero: Bool

    public init(path: [String] = [], missingScalarsAreZero: Bool = false) {
        self.path = path
        self.missingScalarsAreZero = missingScalarsAreZero
    }

    public static let strict = TLJSONContext()
    public static let scenario = TLJSONContext(missingScalarsAreZero: true)

    public func appending(_ component: String) -> TLJSONContext {
        var copy = self
        copy.path.append(component)
        return copy
    }

    public var pathDescription: String {
        var out = ""
        for component in path {
            if component.hasPrefix("[") || out.isEmpty { out += component } else { out += "." + component }
        }
        return out.isEmpty ? "$" : out
    }

    func mismatch(_ expected: String) -> TLJSONError {
        .typeMismatch(path: pathDescription, expected: expected)
    }
}
