import MTProto
import TL

/// Replies (`reply_to` of `messages.sendMessage`): a reply names a message of the same chat by its id as the sender
/// sees it — in the sender's box for private chats and basic groups, whose messages are numbered per box, in the
/// channel for a channel. Each stored copy of a reply points at the copy of the replied message in its own box.
enum Replies {
    /// The replied message's id, checked: `inputReplyToMessage` naming a message of this chat (`reply_to_peer_id`, if
    /// given, must be this chat). A quote or a thread's top message is accepted and not kept; a reply into another chat,
    /// to a story or in a monoforum is not supported here (`REPLY_TO_INVALID`); an id the chat does not hold is
    /// `REPLY_MESSAGE_ID_INVALID`.
    static func target(of input: API.InputReplyTo?, in peer: PeerRef, me: Int64, tx: any StorageReader) throws -> Int32? {
        guard let input else { return nil }
        guard case let .inputReplyToMessage(reply) = input, reply.monoforumPeerId == nil else {
            throw RPCError.badRequest("REPLY_TO_INVALID")
        }
        if let other = reply.replyToPeerId, try PeerResolution.peer(other, me: me, in: tx) != peer {
            throw RPCError.badRequest("REPLY_TO_INVALID")
        }
        let id = reply.replyToMsgId
        var exists = false
        if id > 0 {
            switch peer {
            case let .channel(channel): exists = try tx.channelMessage(channel: channel, id: id) != nil
            default: exists = try tx.message(owner: me, id: id)?.peer == peer
            }
        }
        guard exists else { throw RPCError.badRequest("REPLY_MESSAGE_ID_INVALID") }
        return id
    }

    /// The id of message `replied` (of `sender`'s box) in each box that holds a copy of it, the sender's included; empty
    /// when there is no reply. A box whose copy was deleted gets a reply without its target, as Telegram shows one.
    static func copies(of replied: Int32?, sender: Int64, in tx: any StorageReader) throws -> [Int64: Int32] {
        guard let replied, let message = try tx.message(owner: sender, id: replied) else { return [:] }
        var ids = [sender: replied]
        for copy in try PrivateEdits.otherCopies(of: message, in: tx) { ids[copy.owner] = copy.id }
        return ids
    }
}
