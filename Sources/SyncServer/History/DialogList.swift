import TL

/// `messages.getDialogs`: private and basic-group dialogs (rows kept per owner) and channel dialogs (computed from the user's
/// memberships and the channel's newest message, so a post does not rewrite a row per member), merged by
/// (top date, top message) newest first. Channel dialogs carry the channel's pts, which clients start their
/// channel box from.
enum DialogList {
    private struct Entry {
        var dialog: API.Dialog
        var date: Int32
        var top: Int32
        var message: API.Message?
    }

    static func page(for me: Int64, before: (date: Int32, topMessage: Int32)?, limit: Int,
                     in tx: any StorageReader) throws -> API.messages.Dialogs {
        var entries: [Entry] = []
        var userIDs: [Int64] = []
        var boxPeers: [PeerRef] = []
        for dialog in try tx.dialogs(owner: me, before: before, limit: limit) {
            let message = try tx.message(owner: me, id: dialog.topMessage)
            entries.append(Entry(
                dialog: .dialog(.init(peer: TLRendering.peer(dialog.peer), topMessage: dialog.topMessage,
                                      readInboxMaxId: dialog.readInboxMaxID, readOutboxMaxId: dialog.readOutboxMaxID,
                                      unreadCount: dialog.unreadCount, unreadMentionsCount: 0, unreadReactionsCount: 0,
                                      unreadPollVotesCount: 0, notifySettings: TLRendering.notifySettings())),
                date: dialog.topDate, top: dialog.topMessage, message: message.map(TLRendering.message)))
            if case let .user(id) = dialog.peer { userIDs.append(id) }
            if let sender = message?.fromID { userIDs.append(sender) }
            boxPeers.append(dialog.peer)
        }
        var chats = try ChatRendering.chats(among: boxPeers, viewer: me, in: tx)
        let memberships = try tx.memberships(user: me)
        for member in memberships {
            guard let channel = try tx.channel(id: member.channelID) else { continue }
            let top = try tx.channelMessages(channel: channel.id, in: IDRange(above: 0, below: .max, newestFirst: true, limit: 1)).first
            let (date, topID) = (top?.date ?? channel.date, top?.id ?? 0)
            if let before, (date, topID) >= (before.date, before.topMessage) { continue }
            let unread = try tx.channelUnreadCount(channel: channel.id, above: member.readInboxMaxID, viewer: me)
            entries.append(Entry(
                dialog: ChannelRendering.dialog(channel, member: member, topMessage: topID, unread: unread),
                date: date, top: topID, message: top.map { ChannelRendering.message($0, viewer: me, broadcast: channel.broadcast) }))
            chats.append(ChannelRendering.chat(channel, member: member))
            if let top { userIDs.append(top.fromID) }
        }
        entries.sort { ($0.date, $0.top) > ($1.date, $1.top) }
        let page = entries.prefix(limit)
        var seen: Set<Int64> = []
        let users = try ([me] + userIDs).filter { seen.insert($0).inserted }.compactMap { try tx.user(id: $0) }
            .map { TLRendering.user($0, viewer: me) }
        let total = try tx.dialogCount(owner: me) + memberships.count
        let (dialogs, messages) = (page.map(\.dialog), page.compactMap(\.message))
        if page.count < total, before != nil || page.count == limit {
            return .dialogsSlice(.init(count: Int32(total), dialogs: dialogs, messages: messages, chats: chats, users: users))
        }
        return .dialogs(.init(dialogs: dialogs, messages: messages, chats: chats, users: users))
    }
}
