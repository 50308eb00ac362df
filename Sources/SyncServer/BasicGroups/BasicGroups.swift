import MTProto
import TL

/// What a write to a basic group produced: one copy per member, each in that member's own box with the pts it
/// moved that box to (Telegram keeps basic-group messages in the members' common boxes, numbered per box).
struct ChatDelivery: Sendable {
    struct Copy: Sendable {
        let message: StoredMessage
        let pts: Int32
    }

    let chat: ChatRecord
    let memberCount: Int
    /// The sender's copy first.
    let copies: [Copy]
    /// A retried `random_id`: the first send's result (the sender's copy only), and nothing new to push.
    let isRepeat: Bool

    var senderCopy: Copy? { copies.first }
}

/// Basic groups (core.telegram.org/api/channel#basic-groups): created with `messages.createChat`; every message is
/// copied into each member's box inside the transaction that stores it.
enum BasicGroups {
    /// Ids of created groups start here (channels start at 20,000, users are far below).
    static let firstChatID: Int64 = 30_000
    /// Telegram's limit for a basic group's members.
    static let maximumMembers = 200

    /// The group, its members (the creator and the invited users) and a `messageActionChatCreate` service message in
    /// every member's box.
    static func create(by creator: Int64, title: String, invited: [Int64], date: Int32, in tx: any StorageWriter) throws -> ChatDelivery {
        let chat = ChatRecord(id: max(try tx.maxChatID() + 1, firstChatID), title: title, creatorID: creator, date: date)
        try tx.upsert(chat)
        var memberIDs = [creator]
        for user in invited where !memberIDs.contains(user) { memberIDs.append(user) }
        for user in memberIDs {
            try tx.upsert(ChatMember(chatID: chat.id, userID: user, inviterID: creator, date: date))
        }
        let action = API.MessageAction.messageActionChatCreate(.init(title: title, users: memberIDs)).serialized()
        let copies = try deliver(from: creator, to: chat, members: memberIDs, date: date, in: tx) { owner, id, origin in
            StoredMessage(owner: owner, id: id, peer: .chat(chat.id), fromID: creator, out: owner == creator, date: date, text: "",
                          counterpartID: origin, action: action)
        }
        return ChatDelivery(chat: chat, memberCount: memberIDs.count, copies: copies, isRepeat: false)
    }

    /// A message from a member: a copy in every member's box, the sender's `out`; a repeated `random_id` returns the
    /// first result. The group's defaults may refuse it (`BasicGroupRestrictions`). `replyTo`: a message of the group,
    /// by its id in the sender's box; each copy replies to that box's copy.
    static func send(_ message: OutgoingMessage, from sender: Int64, to chatID: Int64, randomID: Int64, date: Int32,
                     in tx: any StorageWriter) throws -> ChatDelivery {
        let (chat, members) = try membership(of: chatID, user: sender, in: tx)
        if let earlier = try tx.sent(user: sender, randomID: randomID) {
            guard earlier.channelID == nil, let copy = try tx.message(owner: sender, id: earlier.messageID), copy.peer == .chat(chat.id)
            else { throw RPCError.badRequest("RANDOM_ID_DUPLICATE") }
            return ChatDelivery(chat: chat, memberCount: members.count, copies: [.init(message: copy, pts: earlier.pts)], isRepeat: true)
        }
        try BasicGroupRestrictions.refused(sender, in: chat).checkCanSend()
        let replies = try Replies.copies(of: message.replyTo, sender: sender, in: tx)
        let copies = try deliver(from: sender, to: chat, members: members.map(\.userID), date: date, in: tx) { owner, id, origin in
            StoredMessage(owner: owner, id: id, peer: .chat(chat.id), fromID: sender, out: owner == sender, date: date, text: message.text,
                          entities: message.entities, counterpartID: origin, replyTo: replies[owner], forward: message.forward,
                          media: message.media?.bytes, mediaKind: message.media?.kind ?? .none, groupedID: message.groupedID)
        }
        if let first = copies.first {
            try tx.recordSent(SentRecord(messageID: first.message.id, pts: first.pts, date: date), user: sender, randomID: randomID)
        }
        return ChatDelivery(chat: chat, memberCount: members.count, copies: copies, isRepeat: false)
    }

    /// The group and its members, if `user` is one of them; PEER_ID_INVALID otherwise (Telegram does not reveal
    /// whether a group the caller is not in exists).
    static func membership(of chatID: Int64, user: Int64, in tx: any StorageReader) throws -> (ChatRecord, [ChatMember]) {
        guard let chat = try tx.chat(id: chatID) else { throw RPCError.badRequest("PEER_ID_INVALID") }
        let members = try tx.chatMembers(chat: chatID)
        guard members.contains(where: { $0.userID == user }) else { throw RPCError.badRequest("PEER_ID_INVALID") }
        return (chat, members)
    }

    /// Stores one copy per member (the sender's first, whose id links the copies), logs `updateNewMessage` in each
    /// box and raises each member's dialog.
    static func deliver(from sender: Int64, to chat: ChatRecord, members: [Int64], date: Int32, in tx: any StorageWriter,
                                copy make: (_ owner: Int64, _ id: Int32, _ origin: Int32) -> StoredMessage) throws -> [ChatDelivery.Copy] {
        try tx.lockBoxes(users: [sender] + members)
        var senderBox = try UserBox(user: sender, tx: tx)
        let origin = senderBox.takeMessageID()
        var copies: [ChatDelivery.Copy] = []
        for owner in [sender] + members.filter({ $0 != sender }) {
            var box = owner == sender ? senderBox : try UserBox(user: owner, tx: tx)
            let message = make(owner, owner == sender ? origin : box.takeMessageID(), origin)
            let pts = try box.logNewMessage(message)
            try box.save()
            copies.append(.init(message: message, pts: pts))
        }
        return copies
    }
}
