import Foundation

/// Generates Swift source for one schema: an enum per TL type with a case per constructor, a struct per
/// constructor and per function (tied to its result type), JSON conversion, and registries by id and name.
///
/// Output is deterministic: declarations follow schema order and files are grouped by namespace (or, for
/// types without one, by the first word of the type name).
struct SwiftGenerator {
    let schema: TLSchema
    /// Top-level Swift namespace: `API` or `MT`.
    let root: String
    /// Shown in the generated-file header, e.g. `Sources/TL/Schema/api.tl`.
    let sourceLabel: String
    let mapper: SwiftTypeMapper
    /// Types that must be `indirect` because they contain themselves through non-vector fields.
    let indirectTypes: Set<String>

    init(schema: TLSchema, root: String, sourceLabel: String) throws {
        self.schema = schema
        self.root = root
        self.sourceLabel = sourceLabel
        var typePaths: [String: String] = [:]
        var constructorPaths: [String: String] = [:]
        var sole: [String: String] = [:]
        for (type, constructors) in schema.constructorsByType {
            let path = SwiftGenerator.typePath(root: root, type: type)
            typePaths[type] = path
            if constructors.count == 1 { sole[type] = constructors[0].name }
            for constructor in constructors {
                constructorPaths[constructor.name] = path + "." + SwiftNaming.upperCamel(constructor.shortName)
            }
        }
        mapper = SwiftTypeMapper(typePaths: typePaths, constructorPaths: constructorPaths, soleConstructor: sole)
        indirectTypes = SwiftGenerator.recursiveTypes(schema)
        try validate()
    }

    static func typePath(root: String, type: String) -> String {
        let parts = type.split(separator: ".").map(String.init)
        return ([root] + parts.dropLast() + [SwiftNaming.upperCamel(parts.last ?? type)]).joined(separator: ".")
    }

    func functionPath(_ function: TLCombinator) -> String {
        let parts = function.name.split(separator: ".").map(String.init)
        return ([root, "functions"] + parts.dropLast() + [SwiftNaming.upperCamel(parts.last ?? function.name)])
            .joined(separator: ".")
    }

    /// Fails on what the generator cannot express: unknown types, clashing Swift names, flag conditions on
    /// missing `#` fields, generic constructors.
    private func validate() throws {
        var seen: [String: String] = [:]
        for combinator in schema.constructors + schema.functions {
            let path = combinator.isFunction ? functionPath(combinator) : mapper.constructorPaths[combinator.name] ?? ""
            if let other = seen[path.lowercased()] {
                throw SwiftTypeMapper.GenerationError(description: "\(combinator.name) and \(other) both map to \(path)")
            }
            seen[path.lowercased()] = combinator.name
            if !combinator.isFunction && !combinator.typeParameters.isEmpty {
                throw SwiftTypeMapper.GenerationError(description: "\(combinator.name): generic constructors are unsupported")
            }
            var mapper = self.mapper
            mapper.typeParameters = Set(combinator.typeParameters)
            var flagFields = Set<String>()
            for parameter in combinator.parameters {
                if parameter.repetition != nil {
                    throw SwiftTypeMapper.GenerationError(description: "\(combinator.name): repeated groups are unsupported")
                }
                if parameter.isFlagsField { flagFields.insert(parameter.name); continue }
                if let condition = parameter.condition, !flagFields.contains(condition.field) {
                    throw SwiftTypeMapper.GenerationError(description: "\(combinator.name).\(parameter.name): no earlier # field \(condition.field)")
                }
                if parameter.type.name == "true" && parameter.condition == nil {
                    throw SwiftTypeMapper.GenerationError(description: "\(combinator.name).\(parameter.name): unconditional true")
                }
                if !parameter.isTrueFlag { _ = try mapper.swiftType(parameter.type) }
            }
            if combinator.isFunction { _ = try mapper.resultType(combinator.result) }
        }
    }

    /// Types reachable from themselves through fields stored inline (optional or not, but not in a vector).
    static func recursiveTypes(_ schema: TLSchema) -> Set<String> {
        var typeOfConstructor: [String: String] = [:]
        for constructor in schema.constructors { typeOfConstructor[constructor.name] = constructor.result.name }
        var edges: [String: Set<String>] = [:]
        for constructor in schema.constructors {
            for parameter in constructor.parameters where parameter.type.name != "Vector" && parameter.type.name != "vector" {
                let target = typeOfConstructor[parameter.type.name] ?? parameter.type.name
                edges[constructor.result.name, default: []].insert(target)
            }
        }
        var result = Set<String>()
        for type in edges.keys {
            var stack = Array(edges[type] ?? [])
            var visited = Set<String>()
            while let next = stack.popLast() {
                if next == type { result.insert(type); break }
                if visited.insert(next).inserted { stack.append(contentsOf: edges[next] ?? []) }
            }
        }
        return result
    }

    // MARK: - Files

    /// File name → contents.
    func files() throws -> [String: String] {
        var groups: [String: [String]] = [:]
        var order: [String] = []
        var displayNames: [String: String] = [:]
        func add(_ word: String, _ code: String) {
            let lower = word.lowercased()
            let key = lower.hasSuffix("s") ? String(lower.dropLast()) : lower
            if groups[key] == nil { order.append(key) }
            if displayNames[key] == nil || lower.hasSuffix("s") { displayNames[key] = SwiftNaming.upperCamel(lower) }
            groups[key, default: []].append(code)
        }
        let byType = schema.constructorsByType
        for type in schema.typeNames {
            add(groupKey(forType: type), try typeDeclaration(type, constructors: byType[type] ?? []))
        }
        for function in schema.functions {
            add(groupKey(forFunction: function), try functionDeclaration(function))
        }
        var files: [String: String] = [:]
        var named: [String: [String]] = [:]
        for key in order { named[displayNames[key] ?? key] = groups[key] }
        for (key, parts) in mergedGroups(named, order: order.map { displayNames[$0] ?? $0 }) {
            files[key + ".swift"] = header() + "import Foundation\n\n" + parts.joined(separator: "\n")
        }
        files["\(root)+Namespaces.swift"] = header() + namespaces()
        files["\(root)+Registry.swift"] = header() + (try registry())
        return files
    }

    func header() -> String {
        "// generated by tl-gen from \(sourceLabel); do not edit.\n// Regenerate with `swift run tl-gen` from the package root.\n\n"
    }

    /// Small schemas go into one file; otherwise a file per namespace or leading word, tiny groups merged.
    private func mergedGroups(_ groups: [String: [String]], order: [String]) -> [(String, [String])] {
        if schema.constructors.count + schema.functions.count < 100 {
            return [(root == "MT" ? "MTProto" : root, order.flatMap { groups[$0] ?? [] })]
        }
        var merged: [(String, [String])] = []
        var other: [String] = []
        for key in order.sorted() {
            let parts = groups[key] ?? []
            if parts.count < 3 { other += parts } else { merged.append((key, parts)) }
        }
        if !other.isEmpty { merged.append(("Other", other)) }
        return merged
    }

    private func groupKey(forType type: String) -> String {
        if let dot = type.lastIndex(of: ".") { return String(type[..<dot]) }
        return leadingWord(type)
    }

    private func groupKey(forFunction function: TLCombinator) -> String {
        function.namespace ?? "wrappers"
    }

    private func leadingWord(_ name: String) -> String {
        var word = ""
        for character in name {
            if character.isUppercase && !word.isEmpty && word.last?.isLowercase == true { break }
            if character == "_" { break }
            word.append(character)
        }
        return word
    }

    private func namespaces() -> String {
        var typeSpaces = Set<String>()
        var functionSpaces = Set<String>()
        for constructor in schema.constructors { if let space = constructor.result.name.split(separator: ".").dropLast().first { typeSpaces.insert(String(space)) } }
        for function in schema.functions { if let space = function.namespace { functionSpaces.insert(space) } }
        var out = "/// TL schema \(sourceLabel)"
        out += schema.layer.map { ", layer \($0)" } ?? ""
        out += ": types, constructors and functions.\npublic enum \(root) {\n"
        if let layer = schema.layer { out += "    public static let layer: Int32 = \(layer)\n\n" }
        out += "    /// Function calls, by namespace.\n    public enum functions {}\n}\n"
        for space in typeSpaces.sorted() { out += "\nextension \(root) {\n    public enum \(space) {}\n}\n" }
        for space in functionSpaces.sorted() { out += "\nextension \(root).functions {\n    public enum \(space) {}\n}\n" }
        return out
    }
}
