/// The parsed form of a `.tl` schema (core.telegram.org/mtproto/TL-formal).

/// A type expression: `int`, `InputPeer`, `%Message`, `Vector<long>`, `vector<%Message>`, `!X`, `#`.
struct TLTypeExpr: Equatable, Hashable, CustomStringConvertible {
    /// Full name with namespace: `messages.Messages`, `Vector`, `int`, `X`, `#`.
    var name: String
    /// `%T`, or a lowercase name (a constructor or built-in bare type).
    var isBare: Bool
    /// `!X`: a value of the type variable X, serialized as the function it holds.
    var isBang: Bool = false
    var arguments: [TLTypeExpr] = []

    var description: String {
        var out = (isBang ? "!" : "") + (isBare && name.first?.isUppercase == true ? "%" : "") + name
        if !arguments.isEmpty { out += "<" + arguments.map(\.description).joined(separator: ",") + ">" }
        return out
    }
}

/// `flags.3?` / `flags2.0?`: the field exists only when `bit` of the `#` field `field` is set.
struct TLFlagCondition: Equatable, Hashable {
    var field: String
    var bit: Int
}

struct TLParameter: Equatable {
    var name: String
    var type: TLTypeExpr
    var condition: TLFlagCondition?
    /// `n*[ int ]` / `[ t ]`: a repeated group (only the built-in `vector` uses it); nil otherwise.
    var repetition: [TLParameter]?

    /// A `flags.N?true` parameter: a bit with no data.
    var isTrueFlag: Bool { condition != nil && type.name == "true" }
    /// A `#` parameter: a 32-bit bit set computed from the conditional fields.
    var isFlagsField: Bool { type.name == "#" && repetition == nil }
}

struct TLCombinator: Equatable {
    /// Full name: `updates.differenceSlice`.
    var name: String
    var explicitID: UInt32?
    /// CRC32 of the normalized definition (the id the spec says the definition must have).
    var computedID: UInt32
    /// `{X:Type}` parameters.
    var typeParameters: [String]
    var parameters: [TLParameter]
    var result: TLTypeExpr
    var isFunction: Bool
    var line: Int

    var id: UInt32 { explicitID ?? computedID }
    var namespace: String? { name.contains(".") ? String(name[..<name.lastIndex(of: ".")!]) : nil }
    var shortName: String { name.contains(".") ? String(name[name.index(after: name.lastIndex(of: ".")!)...]) : name }
}

struct TLSchema {
    var constructors: [TLCombinator] = []
    var functions: [TLCombinator] = []
    /// From a `// LAYER N` comment, if any.
    var layer: Int?

    /// Constructors grouped by result type, in schema order.
    var constructorsByType: [String: [TLCombinator]] {
        Dictionary(grouping: constructors, by: { $0.result.name })
    }

    /// Type names in order of first appearance.
    var typeNames: [String] {
        var seen = Set<String>()
        return constructors.compactMap { seen.insert($0.result.name).inserted ? $0.result.name : nil }
    }
}
