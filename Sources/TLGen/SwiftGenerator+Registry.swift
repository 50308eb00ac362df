/// The registries: every constructor and function of the schema by id and by name, used to decode
/// `Object` fields and `!X` queries whose type is only known at run time.
extension SwiftGenerator {
    func registry() throws -> String {
        let constructors = schema.constructors
        let functions = schema.functions
        let members = [
            switchFunction(
                doc: "Decodes the bare body of constructor `id` (its id already read); nil if this schema has no such constructor.",
                signature: "decodeConstructor(id: UInt32, from reader: inout TLReader) throws(TLDecodingError) -> (any TLObject)?",
                subject: "id", cases: constructors.map { (hex($0.id), "try \(structPath($0)).decodeBare(from: &reader)") }
            ),
            switchFunction(
                doc: "Decodes the arguments of function `id` (its id already read); nil if this schema has no such function.\n"
                    + "    /// Generic wrappers (`invokeWithLayer`, …) are decoded with `TLAnyFunction` inside.",
                signature: "decodeFunction(id: UInt32, from reader: inout TLReader) throws(TLDecodingError) -> (any TLFunction)?",
                subject: "id", cases: functions.map { (hex($0.id), "try \(concreteFunctionPath($0)).decodeBare(from: &reader)") }
            ),
            switchFunction(
                doc: "Builds constructor `name` from its JSON form; nil if this schema has no such constructor.",
                signature: "constructor(named name: String, json: TLJSON, context: TLJSONContext) throws(TLJSONError) -> (any TLObject)?",
                subject: "name", cases: constructors.map { ("\"\($0.name)\"", "try \(structPath($0))(json: json, context: context)") }
            ),
            switchFunction(
                doc: "Builds function call `name` from its JSON form; nil if this schema has no such function.",
                signature: "function(named name: String, json: TLJSON, context: TLJSONContext) throws(TLJSONError) -> (any TLFunction)?",
                subject: "name", cases: functions.map { ("\"\($0.name)\"", "try \(concreteFunctionPath($0))(json: json, context: context)") }
            ),
            switchFunction(
                doc: "The TL name of every constructor and function of this schema, by id.",
                signature: "name(ofConstructor id: UInt32) -> String?",
                subject: "id", cases: (constructors + functions).map { (hex($0.id), "\"\($0.name)\"") }
            ),
        ]
        return "extension \(root) {\n" + members.joined(separator: "\n") + "}\n"
    }

    /// `public static func SIGNATURE { switch SUBJECT { case LABEL: return VALUE … default: return nil } }`.
    private func switchFunction(doc: String, signature: String, subject: String, cases: [(String, String)]) -> String {
        var out = "    /// \(doc)\n    public static func \(signature) {\n        switch \(subject) {\n"
        for (label, value) in cases { out += "        case \(label): return \(value)\n" }
        return out + "        default: return nil\n        }\n    }\n"
    }

    /// The function's struct with every type parameter bound to `TLAnyFunction`.
    func concreteFunctionPath(_ function: TLCombinator) -> String {
        let path = functionPath(function)
        if function.typeParameters.isEmpty { return path }
        return path + "<" + function.typeParameters.map { _ in "TLAnyFunction" }.joined(separator: ", ") + ">"
    }
}
