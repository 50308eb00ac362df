import Foundation

/// A function of the API layer that this package's schema subset does not model: its name is known
/// (`API.layerFunctionNames`), its arguments are kept as the bytes that arrived.
///
/// A server answers such a call by name (`METHOD_NOT_SUPPORTED_<NAME>`, or `AUTH_KEY_UNREGISTERED` before login) instead
/// of refusing the whole request as undecodable, and the wrappers around it (`invokeWithLayer`, `initConnection`, …)
/// still take effect. Its arguments can only be taken whole: in every `!X` position of the API schema the query is
/// the last parameter, so the rest of the input is the function's (`TLAnyFunction.decode`). Re-encoding writes back
/// exactly the bytes received.
public struct TLOpaqueFunction: TLFunction {
    public typealias Result = TLAnyObject

    public let constructorID: UInt32
    public let constructorName: String
    /// The bare arguments, unparsed.
    public let arguments: [UInt8]

    public init(id: UInt32, name: String, arguments: [UInt8]) {
        constructorID = id
        constructorName = name
        self.arguments = arguments
    }

    public func encode(to writer: inout TLWriter) {
        writer.writeUInt32(constructorID)
        writer.writeRaw(arguments)
    }

    /// Decodes a boxed call of a layer function by its id: everything after the id is its arguments.
    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> TLOpaqueFunction {
        let start = reader.offset
        let id = try reader.readUInt32()
        guard let function = try decodeRest(id: id, from: &reader) else {
            throw .unknownConstructor(id: id, offset: start, expectedType: "function")
        }
        return function
    }

    /// The call of function `id` (already read) with the rest of the input as its arguments; nil when the layer has
    /// no such function.
    static func decodeRest(id: UInt32, from reader: inout TLReader) throws(TLDecodingError) -> TLOpaqueFunction? {
        guard let name = API.layerFunctionNames[id] else { return nil }
        return TLOpaqueFunction(id: id, name: name, arguments: Array(try reader.readRaw(count: reader.remaining)))
    }

    public func toJSON() -> TLJSON {
        .object(TLJSONObject(fields: [("_", .string(constructorName)), ("arguments", Data(arguments).toJSON())]))
    }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        let name = try json.constructorName(context)
        guard let id = API.layerFunctionNames.first(where: { $0.value == name })?.key else {
            throw .unknownConstructor(name: name, path: context.pathDescription)
        }
        let object = try json.constructorObject(name, context)
        let arguments: Data = try object.required("arguments", context)
        self.init(id: id, name: name, arguments: Array(arguments))
    }
}
