import MTProto
import TL

extension MessagesRPC {
    /// What an edit changed: a channel's log or users' boxes.
    enum EditOutcome: Sendable {
        case channel(ChannelChange, UserRecord?, ViewerLinks)
        /// `group`: a basic group's record and member count, rendered for each member told.
        case box(PrivateEdits.Outcome, [UserRecord], ViewerLinks, group: (ChatRecord, Int)?)
    }

    /// `messages.editMessage`: private and group copies in every box (one pts each), or one channel event. The text,
    /// the media (a new upload or an existing file, replacing the message's), or both; markup and scheduling are not
    /// implemented.
    enum EditMessage: RPCMethod {
        typealias Function = API.functions.messages.EditMessage

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            guard call.message != nil || call.media != nil else { throw .badRequest("MESSAGE_EMPTY") }
            if let text = call.message { try InputLimits.checkCaptionOrMessage(text) }
            var edit = MessageEdit(text: call.message, entities: call.entities)
            if let media = call.media { edit.media = try await MediaFiles.outgoing(media, owner: me, dc: context.dc, server: server) }
            let (input, id, date, change) = (call.peer, call.id, server.now, edit)
            let edited = try await server.storageWrite { tx -> EditOutcome in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                let editor = try tx.user(id: me)
                if case let .channel(channel) = peer {
                    let change = try ChannelMessaging.edit(by: me, channel: channel, id: id, change, date: date, in: tx)
                    return .channel(change, editor, try ViewerLinks.forPush(viewers: change.members.ids, users: [me], server: server, in: tx))
                }
                let outcome = try PrivateEdits.edit(by: me, peer: peer, id: id, change, date: date, in: tx)
                let users = try HistoryResults.users(named: [peer], me: me, in: tx)
                var group: (ChatRecord, Int)?
                if case let .chat(id) = peer, let record = try tx.chat(id: id) { group = (record, try tx.chatMembers(chat: id).count) }
                return .box(outcome, users, try ViewerLinks.forPush(viewers: outcome.events.map(\.user), always: [me],
                                                                    users: users.map(\.id), server: server, in: tx), group: group)
            }
            switch edited {
            case let .channel(change, editor, links):
                guard let update = change.update else { throw .internalError }
                UpdatePush.channelEvent(update, channel: change.channel, members: change.members, sender: editor, links: links, date: date,
                                        server: server, except: context.outlet)
                return .updates(.init(
                    updates: [ChannelRendering.event(update, viewer: me, broadcast: change.channel.broadcast)],
                    users: editor.map { [TLRendering.user($0, viewer: me)] } ?? [],
                    chats: [ChannelRendering.chat(change.channel, seenBy: me, in: change.members)],
                    date: date, seq: 0))
            case let .box(outcome, users, links, group):
                let chats = { (viewer: Int64) in group.map { [ChatRendering.chat($0.0, memberCount: $0.1, viewer: viewer)] } ?? [] }
                var mine: [API.Update] = []
                for event in outcome.events {
                    UpdatePush.withUsers([event.update], users: users, links: links, chats: chats(event.user), to: event.user, date: date,
                                         server: server, except: context.outlet)
                    if event.user == me { mine.append(event.update) }
                }
                return .updates(.init(updates: mine, users: links.rendered(users, viewer: me), chats: chats(me), date: date, seq: 0))
            }

        }
    }
}
