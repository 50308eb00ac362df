/// Maps TL type expressions to Swift types and to the code that encodes and decodes them.
///
/// Generated code reads from `reader: inout TLReader` and writes to `writer: inout TLWriter`.
struct SwiftTypeMapper {
    /// Swift enum path of each TL type: `messages.Messages` → `API.messages.Messages`.
    var typePaths: [String: String]
    /// Swift struct path of each constructor, by TL constructor name.
    var constructorPaths: [String: String]
    /// The single constructor of each type that has exactly one (for `%T`).
    var soleConstructor: [String: String]
    /// The combinator's `{X:Type}` parameters.
    var typeParameters: Set<String> = []

    struct GenerationError: Error, CustomStringConvertible {
        var description: String
    }

    static let primitives: [String: (swift: String, read: String, write: String)] = [
        "int": ("Int32", "readInt32", "writeInt32"),
        "long": ("Int64", "readInt64", "writeInt64"),
        "double": ("Double", "readDouble", "writeDouble"),
        "string": ("String", "readString", "writeString"),
        "bytes": ("Data", "readBytes", "writeBytes"),
        "Bool": ("Bool", "readBool", "writeBool"),
    ]

    static let valueTypes: [String: String] = ["int128": "TLInt128", "int256": "TLInt256", "Object": "TLAnyObject"]

    func swiftType(_ type: TLTypeExpr) throws -> String {
        if let primitive = Self.primitives[type.name] { return primitive.swift }
        if let value = Self.valueTypes[type.name] { return value }
        if isVector(type) { return "[" + (try swiftType(try element(of: type))) + "]" }
        if typeParameters.contains(type.name) { return type.name }
        if type.isBare { return try bareConstructorPath(type) }
        guard let path = typePaths[type.name] else { throw GenerationError(description: "unknown type \(type)") }
        return path
    }

    /// The Swift type of a function's result: `X` means the wrapped query's result.
    func resultType(_ type: TLTypeExpr) throws -> String {
        if typeParameters.contains(type.name) { return "\(type.name).Result" }
        if isVector(type), try !isNatural(try element(of: type)) {
            throw GenerationError(description: "result \(type) has bare elements")
        }
        return try swiftType(type)
    }

    /// True when the value's encoding as this field is its `TLValue` (natural) encoding.
    func isNatural(_ type: TLTypeExpr) throws -> Bool {
        if Self.primitives[type.name] != nil || Self.valueTypes[type.name] != nil || typeParameters.contains(type.name) {
            return true
        }
        if type.name == "Vector" { return try isNatural(try element(of: type)) }
        if type.name == "vector" { return false }
        return !type.isBare
    }

    /// An expression (with `try`) that decodes `type` from `reader`.
    func decode(_ type: TLTypeExpr) throws -> String {
        if let primitive = Self.primitives[type.name] { return "try reader.\(primitive.read)()" }
        if isVector(type) {
            if try isNatural(type) { return "try \(try swiftType(type)).decode(from: &reader)" }
            let element = try element(of: type)
            let method = type.name == "vector" ? "readBareVector" : "readVector"
            let elementType = try swiftType(element)
            return "try reader.\(method) { (reader: inout TLReader) throws(TLDecodingError) -> \(elementType) in \(try decode(element)) }"
        }
        if type.isBare && !typeParameters.contains(type.name) && Self.valueTypes[type.name] == nil {
            return "try \(try bareConstructorPath(type)).decodeBare(from: &reader)"
        }
        return "try \(try swiftType(type)).decode(from: &reader)"
    }

    /// A statement that encodes `value` (an expression of the mapped Swift type) as `type` into `writer`.
    func encode(_ type: TLTypeExpr, _ value: String) throws -> String {
        if let primitive = Self.primitives[type.name] { return "writer.\(primitive.write)(\(value))" }
        if isVector(type) {
            if try isNatural(type) { return "\(value).encode(to: &writer)" }
            let method = type.name == "vector" ? "writeBareVector" : "writeVector"
            return "writer.\(method)(\(value)) { writer, element in \(try encode(try element(of: type), "element")) }"
        }
        if type.isBare && !typeParameters.contains(type.name) && Self.valueTypes[type.name] == nil {
            return "\(value).encodeBare(to: &writer)"
        }
        return "\(value).encode(to: &writer)"
    }

    func isVector(_ type: TLTypeExpr) -> Bool {
        type.name == "Vector" || type.name == "vector"
    }

    func element(of type: TLTypeExpr) throws -> TLTypeExpr {
        guard type.arguments.count == 1 else { throw GenerationError(description: "\(type) needs one type argument") }
        return type.arguments[0]
    }

    /// `%T` (T with one constructor) or a lowercase constructor name → that constructor's struct.
    func bareConstructorPath(_ type: TLTypeExpr) throws -> String {
        if let path = constructorPaths[type.name] { return path }
        if let sole = soleConstructor[type.name], let path = constructorPaths[sole] { return path }
        throw GenerationError(description: "bare type \(type) names no constructor or single-constructor type")
    }
}
