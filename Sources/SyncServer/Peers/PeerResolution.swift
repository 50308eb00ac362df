import MTProto
import TL

/// Input peers and users as stored references, with the checks Telegram makes: an access hash must match the
/// user's, `inputPeerSelf`/`inputUserSelf` are the caller. A peer the caller may not address is PEER_ID_INVALID;
/// a basic group only for its members; a channel is checked by `ChannelAccess` (membership is checked by each operation).
enum PeerResolution {
    static func user(_ input: API.InputUser, me: Int64, in tx: any StorageReader) throws -> UserRecord {
        switch input {
        case .inputUserSelf:
            guard let user = try tx.user(id: me) else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
            return user
        case let .inputUser(value):
            return try checkedUser(value.userId, accessHash: value.accessHash, me: me, in: tx)
        case .inputUserEmpty, .inputUserFromMessage:
            throw RPCError.badRequest("USER_ID_INVALID")
        }
    }

    static func peer(_ input: API.InputPeer, me: Int64, in tx: any StorageReader) throws -> PeerRef {
        switch input {
        case .inputPeerSelf:
            return .user(me)
        case let .inputPeerUser(value):
            return .user(try checkedUser(value.userId, accessHash: value.accessHash, me: me, in: tx).id)
        case let .inputPeerChannel(value):
            return .channel(try ChannelAccess.channel(id: value.channelId, accessHash: value.accessHash, in: tx).id)
        case let .inputPeerChat(value):
            return .chat(try BasicGroups.membership(of: value.chatId, user: me, in: tx).0.id)
        case .inputPeerChannelFromMessage:
            throw RPCError.badRequest("CHANNEL_INVALID")
        default:
            throw RPCError.badRequest("PEER_ID_INVALID")
        }
    }

    /// The boxes a private send to `input` will lock, read from the request alone (nothing checked yet: a hint for
    /// `ServerStorage.write(locking:_:)`); none for other peers, whose writes lock what their members need.
    static func boxes(of input: API.InputPeer, me: Int64) -> [Int64] {
        switch input {
        case .inputPeerSelf: [me]
        case let .inputPeerUser(value): [me, value.userId]
        default: []
        }
    }

    private static func checkedUser(_ id: Int64, accessHash: Int64, me: Int64, in tx: any StorageReader) throws -> UserRecord {
        guard let user = try tx.user(id: id), user.id == me || user.accessHash == accessHash else {
            throw RPCError.badRequest("PEER_ID_INVALID")
        }
        return user
    }
}
