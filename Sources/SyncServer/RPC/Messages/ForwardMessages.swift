import MTProtoNIO
import MTProto
import TL

extension MessagesRPC {
    /// `messages.forwardMessages` (at most 100 ids, one `random_id` each: `RANDOM_ID_INVALID` otherwise) from a private
    /// chat, basic group or channel the caller can read to one they can write to, in one transaction (`Forwarding`).
    /// `MESSAGE_ID_INVALID` when none of the ids names a message that can be forwarded. Each forwarded message counts
    /// against the send rate. The caller gets every copy with its pts in one `updates`; the other sessions of everyone
    /// the copies reach get theirs pushed.
    enum ForwardMessages: RPCMethod {
        typealias Function = API.functions.messages.ForwardMessages

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            guard !call.id.isEmpty else { throw .badRequest("MESSAGE_ID_INVALID") }
            guard call.randomId.count == call.id.count, Set(call.randomId).count == call.randomId.count else {
                throw .badRequest("RANDOM_ID_INVALID")
            }
            for _ in call.id { try server.sendRate.admit(user: me, now: server.monotonicNow) }
            let date = server.now
            let outcome = try await server.storageWrite(locking: PeerResolution.boxes(of: call.toPeer, me: me)) { tx in
                try store(call, me: me, date: date, server: server, in: tx)
            }
            BatchSend.push(outcome, date: date, server: server, except: context.outlet)
            return outcome.answer
        }

        static func store(_ call: Function, me: Int64, date: Int32, server: ServerContext,
                          in tx: any StorageWriter) throws -> BatchSend.Outcome {
            guard let sender = try tx.user(id: me) else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
            let from = try PeerResolution.peer(call.fromPeer, me: me, in: tx)
            let sources = try Forwarding.sources(call.id, from: from, me: me, dropAuthor: call.dropAuthor, in: tx)
            guard !sources.isEmpty else { throw RPCError.badRequest("MESSAGE_ID_INVALID") }
            let (originUsers, originChats) = try Forwarding.origins(of: sources, viewer: me, in: tx)
            let to = try PeerResolution.peer(call.toPeer, me: me, in: tx)
            let messages = zip(sources, call.randomId).map { source, randomID in
                (OutgoingMessage(text: source.text, entities: source.entities, forward: source.header, media: source.media), randomID)
            }
            return try BatchSend.deliver(messages, from: sender, to: to, naming: originUsers, chats: originChats, date: date,
                                         server: server, in: tx)
        }
    }
}
