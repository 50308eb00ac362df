/// The registries: every constructor and function of the schema by id and by name, used to decode
/// `Object` fields and `!X` queries whose type is only known at run time.
extension SwiftGenerator {
    func registry() throws -> String {
        var out = "extension \(root) {\n"
        out += "    /// Decodes the bare body of constructor `id` (its id already read); nil if this schema has no such constructor.\n"
        out += "    public static func decodeConstructor(id: UInt32, from reader: inout TLReader) throws(TLDecodingError) -> (any TLObject)? {\n"
        out += "        switch id {\n"
        for c in schema.constructors { out += "        case \(hex(c.id)): return try \(structPath(c)).decodeBare(from: &reader)\n" }
        out += "        default: return nil\n        }\n    }\n\n"

        out += "    /// Decodes the arguments of function `id` (its id already read); nil if this schema has no such function.\n"
        out += "    /// Generic wrappers (`invokeWithLayer`, …) are decoded with `TLAnyFunction` inside.\n"
        out += "    public static func decodeFunction(id: UInt32, from reader: inout TLReader) throws(TLDecodingError) -> (any TLFunction)? {\n"
        out += "        switch id {\n"
        for f in schema.functions { out += "        case \(hex(f.id)): return try \(concreteFunctionPath(f)).decodeBare(from: &reader)\n" }
        out += "        default: return nil\n        }\n    }\n\n"

        out += "    /// Builds constructor `name` from its JSON form; nil if this schema has no such constructor.\n"
        out += "    public static func constructor(named name: String, json: TLJSON, context: TLJSONContext) throws(TLJSONError) -> (any TLObject)? {\n"
        out += "        switch name {\n"
        for c in schema.constructors { out += "        case \"\(c.name)\": return try \(structPath(c))(json: json, context: context)\n" }
        out += "        default: return nil\n        }\n    }\n\n"

        out += "    /// Builds function call `name` from its JSON form; nil if this schema has no such function.\n"
        out += "    public static func function(named name: String, json: TLJSON, context: TLJSONContext) throws(TLJSONError) -> (any TLFunction)? {\n"
        out += "        switch name {\n"
        for f in schema.functions { out += "        case \"\(f.name)\": return try \(concreteFunctionPath(f))(json: json, context: context)\n" }
        out += "        default: return nil\n        }\n    }\n\n"

        out += "    /// The TL name of every constructor and function of this schema, by id.\n"
        out += "    public static func name(ofConstructor id: UInt32) -> String? {\n        switch id {\n"
        for c in schema.constructors + schema.functions { out += "        case \(hex(c.id)): return \"\(c.name)\"\n" }
        out += "        default: return nil\n        }\n    }\n}\n"
        return out
    }

    /// The function's struct with every type parameter bound to `TLAnyFunction`.
    func concreteFunctionPath(_ function: TLCombinator) -> String {
        let path = functionPath(function)
        if function.typeParameters.isEmpty { return path }
        return path + "<" + function.typeParameters.map { _ in "TLAnyFunction" }.joined(separator: ", ") + ">"
    }
}
