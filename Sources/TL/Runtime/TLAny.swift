import Foundation

/// Any function call, decoded through the generated registries: the type of `!X` queries the server
/// receives (`invokeWithLayer`, `initConnection`, …) before it knows which method is inside.
public struct TLAnyFunction: TLFunction {
    public typealias Result = TLAnyObject
    public let function: any TLFunction

    public init(_ function: any TLFunction) {
        self.function = function
    }

    public var constructorID: UInt32 { function.constructorID }
    public var constructorName: String { function.constructorName }

    public func encode(to writer: inout TLWriter) { function.encode(to: &writer) }

    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> TLAnyFunction {
        let start = reader.offset
        let id = try reader.readUInt32()
        try reader.enterNested()
        defer { reader.leaveNested() }
        if let function = try TLRegistry.decodeFunction(id: id, from: &reader) { return TLAnyFunction(function) }
        // A function of the layer outside the modelled subset: named, its arguments (the rest) kept as bytes.
        if let opaque = try TLOpaqueFunction.decodeRest(id: id, from: &reader) { return TLAnyFunction(opaque) }
        throw .unknownConstructor(id: id, offset: start, expectedType: "function")
    }

    public func toJSON() -> TLJSON { function.toJSON() }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        let name = try json.constructorName(context)
        guard let function = try TLRegistry.function(named: name, json: json, context: context) else {
            throw .unknownConstructor(name: name, path: context.pathDescription)
        }
        self.function = function
    }

    public static func == (lhs: TLAnyFunction, rhs: TLAnyFunction) -> Bool { lhs.serialized() == rhs.serialized() }
    public func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }
}

/// Any boxed object (the schema's `Object`), decoded through the generated registries.
public struct TLAnyObject: TLObject {
    public let object: any TLObject

    public init(_ object: any TLObject) {
        self.object = object
    }

    public var constructorID: UInt32 { object.constructorID }
    public var constructorName: String { object.constructorName }

    public func encode(to writer: inout TLWriter) { object.encode(to: &writer) }

    public static func decode(from reader: inout TLReader) throws(TLDecodingError) -> TLAnyObject {
        let start = reader.offset
        let id = try reader.readUInt32()
        try reader.enterNested()
        defer { reader.leaveNested() }
        if let object = try TLRegistry.decodeObject(id: id, from: &reader) { return TLAnyObject(object) }
        throw .unknownConstructor(id: id, offset: start, expectedType: "Object")
    }

    public func toJSON() -> TLJSON { object.toJSON() }

    public init(json: TLJSON, context: TLJSONContext) throws(TLJSONError) {
        let name = try json.constructorName(context)
        guard let object = try TLRegistry.object(named: name, json: json, context: context) else {
            throw .unknownConstructor(name: name, path: context.pathDescription)
        }
        self.object = object
    }

    public static func == (lhs: TLAnyObject, rhs: TLAnyObject) -> Bool { lhs.serialized() == rhs.serialized() }
    public func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }
}

/// Looks constructors and functions up by id or name across every generated schema.
public enum TLRegistry {
    /// Decodes the bare body of the constructor `id` (already consumed), or returns nil if no schema has it.
    public static func decodeObject(id: UInt32, from reader: inout TLReader) throws(TLDecodingError) -> (any TLObject)? {
        if let object = try API.decodeConstructor(id: id, from: &reader) { return object }
        return try MT.decodeConstructor(id: id, from: &reader)
    }

    /// Decodes the arguments of the function `id` (already consumed), or returns nil if no schema has it.
    public static func decodeFunction(id: UInt32, from reader: inout TLReader) throws(TLDecodingError) -> (any TLFunction)? {
        if let function = try API.decodeFunction(id: id, from: &reader) { return function }
        return try MT.decodeFunction(id: id, from: &reader)
    }

    public static func object(named name: String, json: TLJSON, context: TLJSONContext) throws(TLJSONError) -> (any TLObject)? {
        if let object = try API.constructor(named: name, json: json, context: context) { return object }
        return try MT.constructor(named: name, json: json, context: context)
    }

    public static func function(named name: String, json: TLJSON, context: TLJSONContext) throws(TLJSONError) -> (any TLFunction)? {
        if let function = try API.function(named: name, json: json, context: context) { return function }
        return try MT.function(named: name, json: json, context: context)
    }
}
