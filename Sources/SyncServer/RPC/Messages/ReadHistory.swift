import MTProto
import TL

extension MessagesRPC {
    /// `messages.readHistory` in a private chat or basic group: the reader's inbox and each sender's outbox move, each
    /// with its pts.
    enum ReadHistory: RPCMethod {
        typealias Function = API.functions.messages.ReadHistory

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, maxID, date) = (call.peer, call.maxId, server.now)
            let outcome = try await server.storageWrite { tx in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                // Channels are read with channels.readHistory, as Telegram asks.
                if case .channel = peer { throw RPCError.badRequest("PEER_ID_INVALID") }
                return try DialogReads.readHistory(reader: me, peer: peer, maxID: maxID, date: date, in: tx)
            }
            if let update = outcome.readerUpdate { UpdatePush.single(update, to: me, date: date, server: server, except: context.outlet) }
            for (sender, update) in outcome.senders {
                UpdatePush.single(update, to: sender, date: date, server: server, except: nil)
            }
            return .affectedMessages(.init(pts: outcome.readerPts, ptsCount: outcome.readerPtsCount))

        }
    }
}
