import MTProto
import TL

/// One RPC method of the server, a named unit: `MessagesRPC.SendMessage` answers `messages.sendMessage`, in
/// `RPC/Messages/SendMessage.swift`. Each validates the call, computes and commits in one storage transaction, then
/// pushes to the other sessions and answers (`MethodTable` lists them all).
protocol RPCMethod: Sendable {
    associatedtype Function: TLFunction & TLConstructor
    static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result
}

/// A method whose answer is assembled from stored bytes (a difference from its logged updates).
protocol PreEncodedRPCMethod: Sendable {
    associatedtype Function: TLFunction & TLConstructor
    static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError)
        -> TLPreEncoded<Function.Result>
}

extension RPCRouter {
    mutating func on<Method: RPCMethod>(_ method: Method.Type, server: ServerContext) {
        on(Method.Function.self) { call, context throws(RPCError) in try await Method.answer(call, context, server: server) }
    }

    mutating func on<Method: PreEncodedRPCMethod>(_ method: Method.Type, server: ServerContext) {
        on(Method.Function.self, preEncoded: { call, context throws(RPCError) in try await Method.answer(call, context, server: server) })
    }
}
