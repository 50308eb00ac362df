/// Generates `TLArbitrary` conformances for SyncTesting: a random value for every constructor and
/// function, used by the round-trip property tests. Flag bits are decided once per bit so fields that
/// share a bit (`solution:flags.1?string solution_entities:flags.1?Vector<…>`) are set together, and
/// past the depth limit every type falls back to its shallowest constructor so generation terminates.
struct ArbitraryGenerator {
    let generator: SwiftGenerator

    func file() throws -> String {
        let schema = generator.schema
        var out = generator.header() + "import Foundation\nimport TL\n\n"
        let shallowest = shallowestConstructors()
        let byType = schema.constructorsByType
        for type in schema.typeNames {
            let constructors = byType[type] ?? []
            let path = generator.mapper.typePaths[type] ?? type
            out += "extension \(path): TLArbitrary {\n"
            out += "    public static func arbitrary(using g: inout TLArbitraryGenerator) -> \(path) {\n"
            if let fallback = shallowest[type] {
                let c = constructors.first { $0.name == fallback }!
                out += "        if g.isExhausted { return .\(generator.caseName(c))(.arbitrary(using: &g)) }\n"
            }
            out += "        switch g.choice(\(constructors.count)) {\n"
            for (index, c) in constructors.enumerated() {
                let label = index == constructors.count - 1 ? "default" : "case \(index)"
                out += "        \(label): return .\(generator.caseName(c))(.arbitrary(using: &g))\n"
            }
            out += "        }\n    }\n}\n\n"
            for c in constructors { out += try structArbitrary(c, path: generator.structPath(c), generic: false) }
        }
        for function in schema.functions {
            out += try structArbitrary(function, path: generator.functionPath(function), generic: !function.typeParameters.isEmpty)
        }
        out += "extension \(generator.root) {\n"
        out += "    /// One arbitrary value of every constructor and function of the schema, in schema order.\n"
        out += "    public static func arbitraryOfEveryCombinator(using g: inout TLArbitraryGenerator) -> [any TLConstructor] {\n"
        out += "        var values: [any TLConstructor] = []\n"
        for c in schema.constructors { out += "        values.append(\(generator.structPath(c)).arbitrary(using: &g))\n" }
        for f in schema.functions { out += "        values.append(\(generator.concreteFunctionPath(f)).arbitrary(using: &g))\n" }
        out += "        return values\n    }\n}\n"
        return out
    }

    private func structArbitrary(_ combinator: TLCombinator, path: String, generic: Bool) throws -> String {
        var mapper = generator.mapper
        mapper.typeParameters = Set(combinator.typeParameters)
        let target = generic ? path + "<" + combinator.typeParameters.map { _ in "TLAnyFunction" }.joined(separator: ", ") + ">" : path
        var out = generic
            ? "extension \(path): TLArbitrary where \(combinator.typeParameters.map { "\($0) == TLAnyFunction" }.joined(separator: ", ")) {\n"
            : "extension \(path): TLArbitrary {\n"
        out += "    public static func arbitrary(using g: inout TLArbitraryGenerator) -> \(target) {\n"
        out += "        g.enter()\n        defer { g.leave() }\n"
        var bits = Set<TLFlagCondition>()
        for parameter in combinator.parameters {
            if let condition = parameter.condition, bits.insert(condition).inserted {
                out += "        let \(bitLocal(condition)) = g.presence()\n"
            }
        }
        var arguments: [String] = []
        for parameter in combinator.parameters where !parameter.isFlagsField {
            let value: String
            if let condition = parameter.condition {
                value = parameter.isTrueFlag
                    ? bitLocal(condition)
                    : "\(bitLocal(condition)) ? \(try valueExpression(parameter.type, mapper)) : nil"
            } else {
                value = try valueExpression(parameter.type, mapper)
            }
            arguments.append("\(SwiftNaming.label(parameter.name)): \(value)")
        }
        out += "        return \(target)(\(arguments.joined(separator: ", ")))\n    }\n}\n\n"
        return out
    }

    private func valueExpression(_ type: TLTypeExpr, _ mapper: SwiftTypeMapper) throws -> String {
        switch type.name {
        case "int": return "g.int32()"
        case "long": return "g.int64()"
        case "double": return "g.double()"
        case "string": return "g.string()"
        case "bytes": return "g.bytes()"
        case "Bool": return "g.bool()"
        case "int128": return "g.int128()"
        case "int256": return "g.int256()"
        case "Object": return "TLAnyObject.arbitrary(using: &g)"
        case "Vector", "vector":
            let element = try mapper.element(of: type)
            return "g.array { g in \(try valueExpression(element, mapper)) }"
        default:
            if mapper.typeParameters.contains(type.name) { return "TLAnyFunction.arbitrary(using: &g)" }
            return "\(try mapper.swiftType(type)).arbitrary(using: &g)"
        }
    }

    private func bitLocal(_ condition: TLFlagCondition) -> String {
        "\(condition.field)Bit\(condition.bit)"
    }

    /// For each type, a constructor whose required fields never need a deeper value of a type without one:
    /// computed by rounds, so following fallbacks always ends.
    func shallowestConstructors() -> [String: String] {
        let schema = generator.schema
        var chosen: [String: String] = [:]
        var changed = true
        while changed {
            changed = false
            for constructor in schema.constructors where chosen[constructor.result.name] == nil {
                let ready = constructor.parameters.allSatisfy { parameter in
                    if parameter.condition != nil || parameter.isFlagsField { return true }
                    return isTerminal(parameter.type, chosen)
                }
                if ready {
                    chosen[constructor.result.name] = constructor.name
                    changed = true
                }
            }
        }
        return chosen
    }

    private func isTerminal(_ type: TLTypeExpr, _ chosen: [String: String]) -> Bool {
        if type.name == "Vector" || type.name == "vector" { return true }
        if SwiftTypeMapper.primitives[type.name] != nil || SwiftTypeMapper.valueTypes[type.name] != nil { return true }
        if let owner = generator.schema.constructors.first(where: { $0.name == type.name }) {
            return chosen[owner.result.name] != nil
        }
        return chosen[type.name] != nil
    }
}
