import MTProto
import TL

/// One small handler per method, found by the method's TL name. A method without a handler gets an honest
/// `rpc_error 400` that names it, so clients see exactly what is not implemented yet.
public struct RPCRouter: Sendable {
    public typealias Handler = @Sendable (RPCContext) async -> Result<[UInt8], RPCError>

    private var handlers: [String: Handler] = [:]

    public init() {}

    /// Registers a typed handler for `Method`.
    public mutating func on<Method: TLFunction>(
        _ method: Method.Type, _ handler: @escaping @Sendable (Method, RPCContext) async throws(RPCError) -> Method.Result
    ) where Method: TLConstructor {
        register(method) { call, context throws(RPCError) in try await handler(call, context).serialized() }
    }

    /// Registers a handler that answers with the result already serialized (assembled from stored bytes).
    public mutating func on<Method: TLFunction>(
        _ method: Method.Type, preEncoded handler: @escaping @Sendable (Method, RPCContext) async throws(RPCError) -> TLPreEncoded<Method.Result>
    ) where Method: TLConstructor {
        register(method) { call, context throws(RPCError) in try await handler(call, context).bytes }
    }

    private mutating func register<Method: TLFunction>(
        _ method: Method.Type, _ answer: @escaping @Sendable (Method, RPCContext) async throws(RPCError) -> [UInt8]
    ) where Method: TLConstructor {
        handlers[Method.constructorName] = { context in
            guard let call = context.rpc.function.function as? Method else {
                return .failure(RPCError(code: 400, message: "INPUT_METHOD_INVALID"))
            }
            do throws(RPCError) {
                return .success(try await answer(call, context))
            } catch {
                return .failure(error)
            }
        }
    }

    public func handle(_ context: RPCContext) async -> Result<[UInt8], RPCError> {
        let name = context.rpc.function.constructorName
        if let handler = handlers[name] { return await handler(context) }
        // A logged-out key gets what Telegram answers it for any method that acts for a user ("sign in first");
        // a logged-in one learns that the method is not implemented here.
        if context.userID == nil, !Self.worksWithoutLogin(name) {
            return .failure(RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED"))
        }
        return .failure(Self.unsupported(name))
    }

    /// Namespaces whose methods Telegram serves to keys that are not logged in.
    static func worksWithoutLogin(_ method: String) -> Bool {
        ["help.", "auth.", "langpack."].contains { method.hasPrefix($0) }
    }

    /// Namespaces a logged-in user may call on any DC; everything else is served by the user's home DC only
    /// (USER_MIGRATE_X elsewhere).
    static func worksOnAnyDC(_ method: String) -> Bool {
        ["help.", "auth.", "langpack.", "users.", "upload."].contains { method.hasPrefix($0) }
    }

    /// `METHOD_NOT_SUPPORTED_MESSAGES_SENDMESSAGE` for `messages.sendMessage`: error texts are upper-case tokens.
    public static func unsupported(_ method: String) -> RPCError {
        RPCError(code: 400, message: "METHOD_NOT_SUPPORTED_" + method.uppercased().replacingOccurrences(of: ".", with: "_"))
    }

    public var methods: [String] { handlers.keys.sorted() }
}
