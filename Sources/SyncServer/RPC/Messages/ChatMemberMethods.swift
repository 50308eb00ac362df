import MTProtoNIO
import MTProto
import TL

extension MessagesRPC {
    /// After a basic group's change: every member's copy of the service message pushed, and the caller's answer (their
    /// copy with its pts, the group and the users it names).
    static func pushAndAnswer(_ delivery: ChatDelivery, users: [UserRecord], links: ViewerLinks, me: Int64, date: Int32,
                              server: ServerContext, except caller: SessionOutlet?) throws(RPCError) -> API.Updates {
        guard let copy = delivery.copies.first(where: { $0.message.owner == me }), let sender = users.first(where: { $0.id == me }) else {
            throw .internalError
        }
        UpdatePush.chatDelivery(delivery, sender: sender, naming: users, links: links, server: server, except: caller)
        return .updates(.init(
            updates: [.updateNewMessage(.init(message: TLRendering.message(copy.message), pts: copy.pts, ptsCount: 1))],
            users: links.rendered(users, viewer: me),
            chats: [ChatRendering.chat(delivery.chat, memberCount: delivery.memberCount, viewer: me)], date: date, seq: 0))
    }

    /// `updateChatParticipants` (the whole new list) for every member after a change, logged with seq in their boxes
    /// (it moves no pts): what keeps each member's stored list current.
    static func participantsChanged(_ chatID: Int64, date: Int32, in tx: any StorageWriter) throws -> SequencedUpdate? {
        guard let chat = try tx.chat(id: chatID) else { return nil }
        let members = try tx.chatMembers(chat: chatID)
        return try SequencedUpdate.record(.updateChatParticipants(.init(participants: ChatRendering.participants(chat, members: members))),
                                          naming: nil, to: members.map(\.userID), date: date, in: tx)
    }

    /// `messages.addChatUser`: a member adds a user to a basic group (`BasicGroupMembership`); `fwd_limit` is not used
    /// (the new member's history starts at the join).
    enum AddChatUser: RPCMethod {
        typealias Function = API.functions.messages.AddChatUser

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (chatID, input, date) = (call.chatId, call.userId, server.now)
            let (delivery, users, links, members) = try await server.storageWrite { tx in
                let user = try PeerResolution.user(input, me: me, in: tx)
                let delivery = try BasicGroupMembership.addUser(user.id, to: chatID, by: me, date: date, in: tx)
                let users = try HistoryResults.users(named: [.user(user.id)], me: me, in: tx)
                return (delivery, users, try ViewerLinks.forChat(delivery, users: users, caller: me, server: server, in: tx),
                        try participantsChanged(chatID, date: date, in: tx))
            }
            let updates = try pushAndAnswer(delivery, users: users, links: links, me: me, date: date, server: server, except: context.outlet)
            members?.push(date: date, server: server)
            return .invitedUsers(.init(updates: updates, missingInvitees: []))
        }
    }

    /// `messages.deleteChatUser`: a member leaves a basic group, or is removed (`BasicGroupMembership`);
    /// `revoke_history` is not supported (the history stays).
    enum DeleteChatUser: RPCMethod {
        typealias Function = API.functions.messages.DeleteChatUser

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (chatID, input, date) = (call.chatId, call.userId, server.now)
            let (delivery, users, links, members) = try await server.storageWrite { tx in
                let user = try PeerResolution.user(input, me: me, in: tx)
                let delivery = try BasicGroupMembership.deleteUser(user.id, from: chatID, by: me, date: date, in: tx)
                let users = try HistoryResults.users(named: [.user(user.id)], me: me, in: tx)
                return (delivery, users, try ViewerLinks.forChat(delivery, users: users, caller: me, server: server, in: tx),
                        try participantsChanged(chatID, date: date, in: tx))
            }
            defer { members?.push(date: date, server: server) }
            return try pushAndAnswer(delivery, users: users, links: links, me: me, date: date, server: server, except: context.outlet)
        }
    }

    /// `messages.editChatTitle`: a member's new title for a basic group.
    enum EditChatTitle: RPCMethod {
        typealias Function = API.functions.messages.EditChatTitle

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let title = try InputLimits.title(call.title)
            let (chatID, date) = (call.chatId, server.now)
            let (delivery, users, links) = try await server.storageWrite { tx in
                let delivery = try BasicGroupMembership.editTitle(title, of: chatID, by: me, date: date, in: tx)
                let users = try HistoryResults.users(named: [], me: me, in: tx)
                return (delivery, users, try ViewerLinks.forChat(delivery, users: users, caller: me, server: server, in: tx))
            }
            return try pushAndAnswer(delivery, users: users, links: links, me: me, date: date, server: server, except: context.outlet)
        }
    }

    /// `messages.editChatPhoto`: a basic group's photo from an upload, an existing photo or none, told to every member
    /// as a service message; for members allowed to change the group's info.
    enum EditChatPhoto: RPCMethod {
        typealias Function = API.functions.messages.EditChatPhoto

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let photo = try await ChatPhotos.photo(call.photo, me: me, dc: context.dc, server: server)
            let (chatID, date) = (call.chatId, server.now)
            let (delivery, users, links) = try await server.storageWrite { tx in
                let delivery = try BasicGroupMembership.editPhoto(photo, of: chatID, by: me, date: date, in: tx)
                let users = try HistoryResults.users(named: [], me: me, in: tx)
                return (delivery, users, try ViewerLinks.forChat(delivery, users: users, caller: me, server: server, in: tx))
            }
            return try pushAndAnswer(delivery, users: users, links: links, me: me, date: date, server: server, except: context.outlet)
        }
    }

    /// `messages.getFullChat`: a basic group's members (with who invited them) and version, and the caller's newest
    /// pinned message of it (`pinned_msg_id`, which clients show above the chat), for its members.
    enum GetFullChat: RPCMethod {
        typealias Function = API.functions.messages.GetFullChat

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let chatID = call.chatId
            return try await server.storageRead { tx in
                let (chat, members) = try BasicGroups.membership(of: chatID, user: me, in: tx)
                let users = try ContactEditing.rendered(try members.compactMap { try tx.user(id: $0.userID) }, viewer: me, server: server, in: tx)
                let pinned = try Pins.newest(owner: me, peer: .chat(chat.id), in: tx)
                return .chatFull(.init(
                    fullChat: .chatFull(.init(id: chat.id, about: "", participants: ChatRendering.participants(chat, members: members),
                                              notifySettings: TLRendering.notifySettings(), pinnedMsgId: pinned)),
                    chats: [ChatRendering.chat(chat, memberCount: members.count, viewer: me)], users: users))
            }
        }
    }
}
