import MTProto
import TL

extension MessagesRPC {
    /// `messages.saveDraft`: the caller's draft of a chat (text and entities as a message's, a reply by message id),
    /// or its removal with an empty one (`Drafts`).
    enum SaveDraft: RPCMethod {
        typealias Function = API.functions.messages.SaveDraft

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            // A blank draft is no draft; any other is checked as a message's text would be.
            let text = call.message.isBlank ? "" : call.message
            if !text.isEmpty { try InputLimits.checkMessage(text) }
            let entities = text.isEmpty ? nil : TLRendering.entities(try InputLimits.checkedEntities(call.entities, text: text))
            let replyTo: Int32? = if case let .inputReplyToMessage(value)? = call.replyTo { value.replyToMsgId } else { nil }
            let (input, date) = (call.peer, server.now)
            try server.accountStateRate.admit(user: me, now: server.monotonicNow)
            let told = try await server.storageWrite { tx in
                try Drafts.save(in: try PeerResolution.peer(input, me: me, in: tx), text: text, entities: entities, replyTo: replyTo,
                                me: me, date: date, in: tx)
            }
            told?.push(date: date, server: server)
            return true
        }
    }

    /// `messages.getAllDrafts`: the caller's drafts (the newest `Drafts.listed`) as `updateDraftMessage`s in one
    /// `updates`, with the users and chats they name.
    enum GetAllDrafts: RPCMethod {
        typealias Function = API.functions.messages.GetAllDrafts

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let date = server.now
            return try await server.storageRead { tx in
                var updates: [API.Update] = [], peers: [PeerRef] = []
                for (scope, value) in try tx.peerSettings(.draft, owner: me, limit: Drafts.listed) {
                    guard case let .peer(peer) = scope, let draft = try? API.DraftMessage.deserialize(value) else { continue }
                    updates.append(.updateDraftMessage(.init(peer: TLRendering.peer(peer), draft: draft)))
                    peers.append(peer)
                }
                let (entries, boxPeers) = try DialogList.entries(for: peers, me: me, in: tx)
                let (chats, users) = try DialogList.peers(of: entries, boxPeers: boxPeers, me: me, in: tx)
                return .updates(.init(updates: updates, users: users, chats: chats, date: date, seq: 0))
            }
        }
    }
}
