import MTProto
import TL

extension MessagesRPC {
    /// `messages.createChat`: a basic group; its service message goes into every member's box with that box's pts.
    enum CreateChat: RPCMethod {
        typealias Function = API.functions.messages.CreateChat

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let title = try InputLimits.title(call.title)
            guard call.users.count < BasicGroups.maximumMembers else { throw .badRequest("USERS_TOO_MUCH") }
            let (inputs, date) = (call.users, server.now)
            let (created, members, links) = try await server.storageWrite { tx in
                let invited = try inputs.map { try PeerResolution.user($0, me: me, in: tx) }
                let created = try BasicGroups.create(by: me, title: title, invited: invited.map(\.id), date: date, in: tx)
                let members = try HistoryResults.users(named: invited.map { .user($0.id) }, me: me, in: tx)
                return (created, members, try ViewerLinks.forChat(created, users: members, caller: me, server: server, in: tx))
            }
            guard let creatorCopy = created.senderCopy, let creator = members.first(where: { $0.id == me }) else {
                throw .internalError
            }
            UpdatePush.chatDelivery(created, sender: creator, naming: members, links: links, server: server, except: context.outlet)
            let updates = API.Updates.updates(.init(
                updates: [.updateNewMessage(.init(message: TLRendering.message(creatorCopy.message), pts: creatorCopy.pts, ptsCount: 1))],
                users: links.rendered(members, viewer: me),
                chats: [ChatRendering.chat(created.chat, memberCount: created.memberCount, viewer: me)],
                date: date, seq: 0))
            return .invitedUsers(.init(updates: updates, missingInvitees: []))

        }
    }
}
