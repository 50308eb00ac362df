/// Declarations for types (enum + constructor structs) and functions.
extension SwiftGenerator {
    func typeDeclaration(_ type: String, constructors: [TLCombinator]) throws -> String {
        let path = mapper.typePaths[type] ?? type
        let parent = path.split(separator: ".").dropLast().joined(separator: ".")
        let name = path.split(separator: ".").last.map(String.init) ?? path
        var out = "extension \(parent) {\n"
        out += "    /// TL type `\(type)`: \(constructors.map { "`\($0.name)`" }.joined(separator: ", ")).\n"
        out += "    public \(indirectTypes.contains(type) ? "indirect " : "")enum \(name): TLObject {\n"
        for constructor in constructors {
            out += "        case \(caseName(constructor))(\(structPath(constructor)))\n"
        }
        out += "    }\n}\n\n"
        out += typeConformance(type, path: path, constructors: constructors)
        for constructor in constructors {
            out += "\n" + (try combinatorStruct(constructor, parent: path))
        }
        return out
    }

    func functionDeclaration(_ function: TLCombinator) throws -> String {
        let path = functionPath(function)
        let parent = path.split(separator: ".").dropLast().joined(separator: ".")
        return try combinatorStruct(function, parent: parent)
    }

    func caseName(_ constructor: TLCombinator) -> String {
        SwiftNaming.escaped(SwiftNaming.lowerCamel(constructor.shortName))
    }

    func structPath(_ constructor: TLCombinator) -> String {
        mapper.constructorPaths[constructor.name] ?? constructor.name
    }

    private func typeConformance(_ type: String, path: String, constructors: [TLCombinator]) -> String {
        func switchOverSelf(_ signature: String, _ arm: (TLCombinator) -> String) -> String {
            var out = "    public \(signature) {\n        switch self {\n"
            for c in constructors { out += "        \(arm(c))\n" }
            return out + "        }\n    }\n"
        }
        var out = "extension \(path) {\n"
        out += switchOverSelf("var constructorID: UInt32") { "case .\(caseName($0)): return \(hex($0.id))" } + "\n"
        out += switchOverSelf("var constructorName: String") { "case .\(caseName($0)): return \"\($0.name)\"" } + "\n"
        out += switchOverSelf("func encode(to writer: inout TLWriter)") { "case let .\(caseName($0))(value): value.encode(to: &writer)" } + "\n"
        out += "    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> \(path) {\n"
        out += "        let start = reader.offset\n        let id = try reader.readUInt32()\n"
        out += "        try reader.enterNested()\n        defer { reader.leaveNested() }\n        switch id {\n"
        for c in constructors { out += "        case \(hex(c.id)): return .\(caseName(c))(try \(structPath(c)).decodeBare(from: &reader))\n" }
        for (alias, target) in lenientAliases(of: type, constructors: constructors) {
            out += "        case \(hex(alias.id)): return .\(caseName(target))(try \(structPath(target)).decodeBare(from: &reader)) // \(alias.name)\n"
        }
        out += "        default: throw .unknownConstructor(id: id, offset: start, expectedType: \"\(type)\")\n"
        out += "        }\n    }\n\n"
        out += switchOverSelf("func toJSON() -> TLJSON") { "case let .\(caseName($0))(value): return value.toJSON()" } + "\n"
        out += "    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {\n"
        out += "        switch try json.constructorName(context) {\n"
        for c in constructors { out += "        case \"\(c.name)\": self = .\(caseName(c))(try \(structPath(c))(json: json, context: context))\n" }
        out += "        case let name: throw .unknownConstructor(name: name, path: context.pathDescription)\n"
        out += "        }\n    }\n}\n"
        return out
    }

    /// Constructors of another type accepted in place of `type` because clients send them there
    /// (Telethon and kurigram send `inputPeerChannel` where `InputChannel` is expected and `inputPeerSelf` or
    /// `inputPeerUser` where `InputUser` is, and Telegram accepts them). Each alias has exactly its target's field layout, so the target's bare decoder reads it.
    static let lenientAliasNames: [String: [(alias: String, target: String)]] = [
        "InputChannel": [("inputPeerChannel", "inputChannel")],
        "InputUser": [("inputPeerSelf", "inputUserSelf"), ("inputPeerUser", "inputUser")],
    ]

    func lenientAliases(of type: String, constructors: [TLCombinator]) -> [(alias: TLCombinator, target: TLCombinator)] {
        (Self.lenientAliasNames[type] ?? []).compactMap { names in
            guard let alias = schema.constructors.first(where: { $0.name == names.alias }),
                  let target = constructors.first(where: { $0.name == names.target }),
                  alias.parameters.map(\.type.name) == target.parameters.map(\.type.name),
                  !constructors.contains(where: { $0.id == alias.id })
            else { return nil }
            return (alias, target)
        }
    }

    /// A struct for a constructor or a function: fields, memberwise init, bare coding and JSON.
    func combinatorStruct(_ combinator: TLCombinator, parent: String) throws -> String {
        var mapper = self.mapper
        mapper.typeParameters = Set(combinator.typeParameters)
        let name = SwiftNaming.upperCamel(combinator.shortName)
        let fields = combinator.parameters.filter { !$0.isFlagsField }
        let generics = combinator.typeParameters.isEmpty
            ? "" : "<" + combinator.typeParameters.map { "\($0): TLFunction" }.joined(separator: ", ") + ">"
        var conformances = "TLConstructor"
        if combinator.isFunction { conformances += ", TLFunction" }

        var out = "extension \(parent) {\n"
        out += "    /// `\(definitionText(combinator))`\n"
        out += "    public struct \(name)\(generics): \(conformances) {\n"
        if combinator.isFunction { out += "        public typealias Result = \(try mapper.resultType(combinator.result))\n\n" }
        out += "        public static var constructorID: UInt32 { \(hex(combinator.id)) }\n"
        out += "        public static var constructorName: String { \"\(combinator.name)\" }\n"
        var initParameters: [String] = []
        for field in fields {
            let swiftName = SwiftNaming.field(field.name)
            let type = try fieldType(field, mapper)
            out += "        public var \(swiftName): \(type)\n"
            let defaultValue = field.isTrueFlag ? " = false" : field.condition != nil ? " = nil" : ""
            let label = SwiftNaming.label(field.name)
            let name = label == initLocal(field) ? label : "\(label) \(initLocal(field))"
            initParameters.append("\(name): \(type)\(defaultValue)")
        }
        out += "\n        public init(\(initParameters.joined(separator: ", "))) {\n"
        for field in fields {
            let swiftName = SwiftNaming.field(field.name)
            out += "            self.\(swiftName) = \(initLocal(field))\n"
        }
        out += "        }\n\n"
        out += try encodeBare(combinator, mapper)
        out += "\n" + (try decodeBare(combinator, mapper))
        out += "\n" + toJSON(combinator)
        out += "\n" + initJSON(combinator)
        out += "    }\n}\n"
        return out
    }

    /// The init parameter's internal name: a keyword field (`self`, `static`) must not shadow `self`.
    func initLocal(_ field: TLParameter) -> String {
        let plain = SwiftNaming.lowerCamel(field.name)
        return SwiftNaming.keywords.contains(plain) || plain == "let" ? plain + "Value" : plain
    }

    func fieldType(_ field: TLParameter, _ mapper: SwiftTypeMapper) throws -> String {
        if field.isTrueFlag { return "Bool" }
        let base = try mapper.swiftType(field.type)
        return field.condition == nil ? base : base + "?"
    }

    private func encodeBare(_ combinator: TLCombinator, _ mapper: SwiftTypeMapper) throws -> String {
        var out = "        public func encodeBare(to writer: inout TLWriter) {\n"
        for flags in combinator.parameters where flags.isFlagsField {
            let local = flagsLocal(flags.name)
            let users = combinator.parameters.filter { $0.condition?.field == flags.name }
            out += "            \(users.isEmpty ? "let" : "var") \(local): UInt32 = 0\n"
            // Fields that share a bit are present together: the bit is set only when all of them are, so that a value
            // missing one never yields bytes a decoder reads past (layer 229's `channelFull` shares bit 2 between
            // `kicked_count` and `banned_count`).
            var bits: [Int] = []
            for field in users where !bits.contains(field.condition?.bit ?? 0) { bits.append(field.condition?.bit ?? 0) }
            for bit in bits {
                let test = users.filter { ($0.condition?.bit ?? 0) == bit }.map { field in
                    field.isTrueFlag ? "self.\(SwiftNaming.field(field.name))" : "self.\(SwiftNaming.field(field.name)) != nil"
                }.joined(separator: " && ")
                out += "            if \(test) { \(local) |= 1 << \(bit) }\n"
            }
        }
        for parameter in combinator.parameters {
            if parameter.isFlagsField {
                out += "            writer.writeUInt32(\(flagsLocal(parameter.name)))\n"
            } else if parameter.isTrueFlag {
                continue
            } else if let condition = parameter.condition {
                let shared = combinator.parameters.filter { $0.condition == condition }.count > 1
                let gate = shared ? "\(flagsLocal(condition.field)) & (1 << \(condition.bit)) != 0, " : ""
                out += "            if \(gate)let value = self.\(SwiftNaming.field(parameter.name)) { \(try mapper.encode(parameter.type, "value")) }\n"
            } else {
                out += "            \(try mapper.encode(parameter.type, "self." + SwiftNaming.field(parameter.name)))\n"
            }
        }
        return out + "        }\n"
    }

    private func decodeBare(_ combinator: TLCombinator, _ mapper: SwiftTypeMapper) throws -> String {
        let name = SwiftNaming.upperCamel(combinator.shortName)
        var out = "        public static func decodeBare(from reader: inout TLReader) throws(TLDecodingError) -> \(name) {\n"
        var arguments: [String] = []
        for parameter in combinator.parameters {
            if parameter.isFlagsField {
                let used = combinator.parameters.contains { $0.condition?.field == parameter.name }
                out += "            \(used ? "let \(flagsLocal(parameter.name))" : "_") = try reader.readUInt32()\n"
                continue
            }
            let local = "field_" + SwiftNaming.plain(SwiftNaming.field(parameter.name))
            arguments.append("\(SwiftNaming.label(parameter.name)): \(local)")
            if let condition = parameter.condition {
                let test = "\(flagsLocal(condition.field)) & (1 << \(condition.bit)) != 0"
                if parameter.isTrueFlag {
                    out += "            let \(local) = \(test)\n"
                } else {
                    out += "            var \(local): \(try mapper.swiftType(parameter.type))? = nil\n"
                    out += "            if \(test) { \(local) = \(try mapper.decode(parameter.type)) }\n"
                }
            } else {
                out += "            let \(local) = \(try mapper.decode(parameter.type))\n"
            }
        }
        out += "            return \(name)(\(arguments.joined(separator: ", ")))\n"
        return out + "        }\n"
    }

    private func toJSON(_ combinator: TLCombinator) -> String {
        var out = "        public func toJSON() -> TLJSON {\n"
        let fields = combinator.parameters.filter { !$0.isFlagsField }
        out += "            \(fields.isEmpty ? "let" : "var") object = TLJSONObject(constructor: Self.constructorName)\n"
        for field in fields {
            let property = "self." + SwiftNaming.field(field.name)
            if field.isTrueFlag {
                out += "            if \(property) { object.append(\"\(field.name)\", .bool(true)) }\n"
            } else if field.condition != nil {
                out += "            if let value = \(property) { object.append(\"\(field.name)\", value.toJSON()) }\n"
            } else {
                out += "            object.append(\"\(field.name)\", \(property).toJSON())\n"
            }
        }
        return out + "            return .object(object)\n        }\n"
    }

    private func initJSON(_ combinator: TLCombinator) -> String {
        var out = "        public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {\n"
        let fields = combinator.parameters.filter { !$0.isFlagsField }
        out += "            \(fields.isEmpty ? "_" : "let object") = try json.constructorObject(Self.constructorName, context)\n"
        for field in fields {
            let method = field.isTrueFlag ? "flag" : field.condition != nil ? "optional" : "required"
            out += "            self.\(SwiftNaming.field(field.name)) = try object.\(method)(\"\(field.name)\", context)\n"
        }
        return out + "        }\n"
    }

    func flagsLocal(_ name: String) -> String {
        "bits_" + name
    }

    func hex(_ id: UInt32) -> String {
        let digits = String(id, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The definition as written in the schema, with its id, for doc comments.
    func definitionText(_ combinator: TLCombinator) -> String {
        var parts = ["\(combinator.name)#\(String(combinator.id, radix: 16))"]
        parts += combinator.typeParameters.map { "{\($0):Type}" }
        for parameter in combinator.parameters {
            var type = parameter.type.description
            if let condition = parameter.condition { type = "\(condition.field).\(condition.bit)?" + type }
            parts.append("\(parameter.name):\(type)")
        }
        return parts.joined(separator: " ") + " = \(combinator.result.description);"
    }
}
