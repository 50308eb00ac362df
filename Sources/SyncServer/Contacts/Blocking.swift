import MTProto
import TL

/// `contacts.block` and `contacts.unblock` of a user: the block row and the blocker's count of them (on the user's
/// row, which a send reads anyway: a send to someone who blocked nobody looks up nothing more) change together, and
/// the change is told to the blocker's sessions as `updatePeerBlocked`, with the blocker's next seq.
enum Blocking {
    /// Blocks (or unblocks) `target` for `me`; nil when it was so already (nothing changes, nobody is told).
    static func set(_ blocked: Bool, target: Int64, by me: Int64, date: Int32, in tx: any StorageWriter) throws -> SequencedUpdate? {
        guard target != me else { throw RPCError.badRequest("CONTACT_ID_INVALID") }
        guard var blocker = try tx.user(id: me) else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
        guard let user = try tx.user(id: target) else { throw RPCError.badRequest("CONTACT_ID_INVALID") }
        guard (try tx.block(owner: me, user: target) != nil) != blocked else { return nil }
        if blocked {
            try tx.insert(BlockRecord(owner: me, userID: target, date: date))
            blocker.blockedCount += 1
        } else {
            try tx.deleteBlock(owner: me, user: target)
            blocker.blockedCount = max(0, blocker.blockedCount - 1)
        }
        try tx.update(blocker)
        let update = API.Update.updatePeerBlocked(.init(blocked: blocked, peerId: .peerUser(.init(userId: target))))
        return try SequencedUpdate.record(update, naming: user, to: [me], date: date, in: tx)
    }

    /// Whether a private message from `sender` reaches `recipient` (Telegram does not deliver what a blocked user
    /// sends; the sender's copy stays, as on Telegram).
    static func delivers(from sender: Int64, to recipient: UserRecord, in tx: any StorageReader) throws -> Bool {
        guard recipient.blockedCount > 0, recipient.id != sender else { return true }
        return try tx.block(owner: recipient.id, user: sender) == nil
    }

    /// The user a block names: users only (`PEER_ID_INVALID` for chats and channels, which this server does not block).
    static func target(_ input: API.InputPeer, me: Int64, in tx: any StorageReader) throws -> Int64 {
        guard case let .user(id) = try PeerResolution.peer(input, me: me, in: tx) else { throw RPCError.badRequest("PEER_ID_INVALID") }
        return id
    }
}
