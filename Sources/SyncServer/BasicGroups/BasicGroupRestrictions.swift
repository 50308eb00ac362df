import MTProto
import TL

/// A basic group's default restrictions (`messages.editChatDefaultBannedRights`, core.telegram.org/api/rights): what
/// every member but the creator is refused. Basic groups here have no admins, so only the creator sets them and is
/// never bound by them. A refused `send_messages` or `send_plain` refuses messages and forwards as in a supergroup;
/// a refused `invite_users`, `change_info` or `pin_messages` refuses adding members, a new title and pins
/// (`CHAT_ADMIN_REQUIRED`).
enum BasicGroupRestrictions {
    /// What `user` is refused in `chat`.
    static func refused(_ user: Int64, in chat: ChatRecord) -> BannedRights {
        user == chat.creatorID ? [] : BannedRights(rawValue: chat.defaultBannedRights)
    }

    /// Refuses what `right` allows to a member the defaults refuse it.
    static func check(_ right: BannedRights, by user: Int64, in chat: ChatRecord) throws(RPCError) {
        guard refused(user, in: chat).isDisjoint(with: right) else { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
    }

    /// Refuses a pin or unpin in a basic group whose defaults refuse `user` pins (other peers pass).
    static func checkCanPin(by user: Int64, in peer: PeerRef, tx: any StorageReader) throws {
        guard case let .chat(chatID) = peer, let chat = try tx.chat(id: chatID) else { return }
        try check(.pinMessages, by: user, in: chat)
    }

    /// The group's new defaults, for its creator (`CHAT_ADMIN_REQUIRED` for anyone else): `view_messages` cannot be a
    /// default (`BANNED_RIGHTS_INVALID`), the defaults it has already are `CHAT_NOT_MODIFIED`. The change is an
    /// `updateChatDefaultBannedRights` (no pts) in every member's seq log.
    static func editDefaults(of chatID: Int64, rights: API.ChatBannedRights, me: Int64, date: Int32,
                             in tx: any StorageWriter) throws -> (ChatRecord, memberCount: Int, told: SequencedUpdate) {
        var (chat, members) = try BasicGroups.membership(of: chatID, user: me, in: tx)
        guard me == chat.creatorID else { throw RPCError.badRequest("CHAT_ADMIN_REQUIRED") }
        let word = rights.flagsWord
        guard !BannedRights(rawValue: word).contains(.viewMessages) else { throw RPCError.badRequest("BANNED_RIGHTS_INVALID") }
        guard chat.defaultBannedRights != word else { throw RPCError.badRequest("CHAT_NOT_MODIFIED") }
        chat.defaultBannedRights = word
        try tx.upsert(chat)
        let update = API.Update.updateChatDefaultBannedRights(.init(
            peer: .peerChat(.init(chatId: chat.id)), defaultBannedRights: defaults(of: chat), version: chat.version))
        let told = try SequencedUpdate.record(update, naming: nil, to: members.map(\.userID), date: date, in: tx)
        return (chat, members.count, told)
    }

    /// The defaults as clients read them.
    static func defaults(of chat: ChatRecord) -> API.ChatBannedRights {
        API.ChatBannedRights(flagsWord: chat.defaultBannedRights, untilDate: Int32.max)
    }
}
