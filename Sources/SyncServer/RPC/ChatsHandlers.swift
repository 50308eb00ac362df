import MTProto
import TL

/// `messages.createChat` and `messages.getChats`: basic groups. Their messages go through `messages.sendMessage`,
/// `getHistory`, `readHistory`, `editMessage` and `deleteMessages` like private ones. Adding and removing members
/// after creation (`messages.addChatUser`/`deleteChatUser`) is not implemented.
enum ChatsHandlers {
    static func register(in router: inout RPCRouter, server: ServerContext) {
        router.on(API.functions.messages.CreateChat.self) { call, context throws(RPCError) in
            let me = try context.user()
            let title = try InputLimits.title(call.title)
            guard call.users.count < BasicGroups.maximumMembers else { throw .badRequest("USERS_TOO_MUCH") }
            let (inputs, date) = (call.users, server.now)
            let (created, members) = try await server.storageWrite { tx in
                let invited = try inputs.map { try PeerResolution.user($0, me: me, in: tx) }
                let created = try BasicGroups.create(by: me, title: title, invited: invited.map(\.id), date: date, in: tx)
                let members = try HistoryHandlers.users(named: invited.map { .user($0.id) }, me: me, in: tx)
                return (created, members)
            }
            guard let creatorCopy = created.senderCopy, let creator = members.first(where: { $0.id == me }) else {
                throw .internalError
            }
            UpdatePush.chatDelivery(created, sender: creator, server: server, except: context.outlet)
            let updates = API.Updates.updates(.init(
                updates: [.updateNewMessage(.init(message: TLRendering.message(creatorCopy.message), pts: creatorCopy.pts, ptsCount: 1))],
                users: members.map { TLRendering.user($0, viewer: me) },
                chats: [ChatRendering.chat(created.chat, memberCount: created.memberCount, viewer: me)],
                date: date, seq: 0))
            return .invitedUsers(.init(updates: updates, missingInvitees: []))
        }

        router.on(API.functions.messages.GetChats.self) { call, context throws(RPCError) in
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            let ids = call.id
            return try await server.storageRead { tx in
                // Groups the caller is not in are left out, as if they did not exist.
                let chats = try ids.compactMap { id -> API.Chat? in
                    guard let chat = try tx.chat(id: id) else { return nil }
                    let members = try tx.chatMembers(chat: id)
                    guard members.contains(where: { $0.userID == me }) else { return nil }
                    return ChatRendering.chat(chat, memberCount: members.count, viewer: me)
                }
                return .chats(.init(chats: chats))
            }
        }
    }
}
