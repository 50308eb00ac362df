import MTProto
import TL

/// Changing a basic group's members and title (`messages.addChatUser`, `deleteChatUser`, `editChatTitle`): each change
/// bumps the group's version where the member list changes and is a service message in every member's box (the
/// removed member's too, so they see they were removed), as Telegram does. Any member adds users and edits the title
/// unless the group's defaults refuse it (`BasicGroupRestrictions`); a member leaves by removing themselves; the creator
/// removes anyone, and others only the users they invited (`CHAT_ADMIN_REQUIRED`).
enum BasicGroupMembership {
    static func addUser(_ user: Int64, to chatID: Int64, by me: Int64, date: Int32, in tx: any StorageWriter) throws -> ChatDelivery {
        var (chat, members) = try BasicGroups.membership(of: chatID, user: me, in: tx)
        try BasicGroupRestrictions.check(.inviteUsers, by: me, in: chat)
        guard !members.contains(where: { $0.userID == user }) else { throw RPCError.badRequest("USER_ALREADY_PARTICIPANT") }
        guard members.count < BasicGroups.maximumMembers else { throw RPCError.badRequest("USERS_TOO_MUCH") }
        try tx.upsert(ChatMember(chatID: chatID, userID: user, inviterID: me, date: date))
        chat.version += 1
        try tx.upsert(chat)
        return try tell(.messageActionChatAddUser(.init(users: [user])), in: chat, to: members.map(\.userID) + [user], memberCount: members.count + 1,
                        by: me, date: date, tx: tx)
    }

    static func deleteUser(_ user: Int64, from chatID: Int64, by me: Int64, date: Int32, in tx: any StorageWriter) throws -> ChatDelivery {
        var (chat, members) = try BasicGroups.membership(of: chatID, user: me, in: tx)
        guard let member = members.first(where: { $0.userID == user }) else { throw RPCError.badRequest("USER_NOT_PARTICIPANT") }
        guard user == me || me == chat.creatorID || (member.inviterID == me && user != chat.creatorID) else {
            throw RPCError.badRequest("CHAT_ADMIN_REQUIRED")
        }
        chat.version += 1
        try tx.upsert(chat)
        let delivery = try tell(.messageActionChatDeleteUser(.init(userId: user)), in: chat, to: members.map(\.userID),
                                memberCount: members.count - 1, by: me, date: date, tx: tx)
        try tx.removeChatMember(chat: chatID, user: user)
        return delivery
    }

    static func editTitle(_ title: String, of chatID: Int64, by me: Int64, date: Int32, in tx: any StorageWriter) throws -> ChatDelivery {
        var (chat, members) = try BasicGroups.membership(of: chatID, user: me, in: tx)
        try BasicGroupRestrictions.check(.changeInfo, by: me, in: chat)
        guard chat.title != title else { throw RPCError.badRequest("CHAT_NOT_MODIFIED") }
        chat.title = title
        try tx.upsert(chat)
        return try tell(.messageActionChatEditTitle(.init(title: title)), in: chat, to: members.map(\.userID), memberCount: members.count,
                        by: me, date: date, tx: tx)
    }

    /// A new photo, or none (`ChatPhotos.change`), told as a service message.
    static func editPhoto(_ photo: (StoredMediaFile, [StoredPhotoSize])?, of chatID: Int64, by me: Int64, date: Int32,
                          in tx: any StorageWriter) throws -> ChatDelivery {
        var (chat, members) = try BasicGroups.membership(of: chatID, user: me, in: tx)
        try BasicGroupRestrictions.check(.changeInfo, by: me, in: chat)
        let action: API.MessageAction
        (chat.photo, action) = try ChatPhotos.change(from: chat.photo, to: photo)
        try tx.upsert(chat)
        return try tell(action, in: chat, to: members.map(\.userID), memberCount: members.count, by: me, date: date, tx: tx)
    }

    /// The service message in each of `owners`' boxes.
    private static func tell(_ action: API.MessageAction, in chat: ChatRecord, to owners: [Int64], memberCount: Int, by me: Int64,
                             date: Int32, tx: any StorageWriter) throws -> ChatDelivery {
        let bytes = action.serialized()
        let copies = try BasicGroups.deliver(from: me, to: chat, members: owners, date: date, in: tx) { owner, id, origin in
            StoredMessage(owner: owner, id: id, peer: .chat(chat.id), fromID: me, out: owner == me, date: date, text: "",
                          counterpartID: origin, action: bytes)
        }
        return ChatDelivery(chat: chat, memberCount: memberCount, copies: copies, isRepeat: false)
    }
}
