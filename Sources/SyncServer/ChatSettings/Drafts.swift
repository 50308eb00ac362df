import MTProto
import TL

/// Drafts (`messages.saveDraft`, `messages.getAllDrafts`): one per chat the user has, with its text, entities and the
/// message it replies to, shown in `messages.getDialogs` and told to the user's sessions as `updateDraftMessage` with
/// the next seq. An empty draft removes it (`draftMessageEmpty`). Media, effects and suggested posts are not kept.
enum Drafts {
    /// Drafts `messages.getAllDrafts` returns at most, newest first.
    static let listed = 1_000

    /// Saves (or with empty text and no reply, removes) the draft of a chat of the caller; nil when nothing changes.
    static func save(in peer: PeerRef, text: String, entities: [API.MessageEntity]?, replyTo: Int32?, me: Int64, date: Int32,
                     in tx: any StorageWriter) throws -> SequencedUpdate? {
        guard try DialogList.exists(peer, me: me, in: tx) else { throw RPCError.badRequest("PEER_ID_INVALID") }
        let draft: API.DraftMessage
        if text.isEmpty, replyTo == nil {
            guard try tx.peerSetting(.draft, owner: me, scope: .peer(peer)) != nil else { return nil }
            try tx.setPeerSetting(.draft, owner: me, scope: .peer(peer), value: nil, date: date)
            draft = .draftMessageEmpty(.init(date: date))
        } else {
            draft = .draftMessage(.init(replyTo: replyTo.map { .inputReplyToMessage(.init(replyToMsgId: $0)) }, message: text,
                                        entities: entities, date: date))
            try tx.setPeerSetting(.draft, owner: me, scope: .peer(peer), value: draft.serialized(), date: date)
        }
        let update = API.Update.updateDraftMessage(.init(peer: TLRendering.peer(peer), draft: draft))
        let named: UserRecord? = if case let .user(id) = peer { try tx.user(id: id) } else { nil }
        return try SequencedUpdate.record(update, naming: named, to: [me], date: date, in: tx)
    }

    /// The stored draft of a chat, nil when none (or one that does not decode).
    static func draft(owner: Int64, peer: PeerRef, in tx: any StorageReader) throws -> API.DraftMessage? {
        try tx.peerSetting(.draft, owner: owner, scope: .peer(peer)).flatMap { try? API.DraftMessage.deserialize($0) }
    }
}
