import TL

/// `messages.getDialogs`: private and basic-group dialogs (rows kept per owner) and channel dialogs (computed from the user's
/// memberships and the channel's newest message, so a post does not rewrite a row per member), merged by
/// (top date, top message) newest first. Channel dialogs carry the channel's pts, which clients start their
/// channel box from. Pinned dialogs (`DialogPins`) come first on the first page, flagged `pinned`, and are left out of
/// the pages by date (all of them with `exclude_pinned`). `messages.getPeerDialogs` and `messages.getPinnedDialogs`
/// render the same entries for the peers they name.
enum DialogList {
    struct Entry {
        var peer: PeerRef
        var dialog: API.Dialog
        var date: Int32
        var top: Int32
        var message: API.Message?
        /// The users the entry names (the peer of a private dialog, the top message's sender).
        var users: [Int64]
        /// A channel dialog's channel (basic groups are rendered together, `ChatRendering.chats`).
        var channel: API.Chat?
    }

    static func page(for me: Int64, before: (date: Int32, topMessage: Int32)?, limit: Int, excludePinned: Bool = false,
                     in tx: any StorageReader) throws -> API.messages.Dialogs {
        let pins = try tx.pinnedDialogs(owner: me)
        let pinnedFirst: (entries: [Entry], boxPeers: [PeerRef]) = before == nil && !excludePinned
            ? try entries(for: pins, pinned: Set(pins), me: me, in: tx) : ([], [])
        let rows = try tx.dialogs(owner: me, before: before, limit: limit + pins.count).filter { !pins.contains($0.peer) }
        var entries = try rows.map { try entry($0, me: me, in: tx) }
        let memberships = try tx.memberships(user: me)
        for member in memberships where !pins.contains(.channel(member.channelID)) {
            guard let entry = try channelEntry(member, me: me, in: tx) else { continue }
            if let before, (entry.date, entry.top) >= (before.date, before.topMessage) { continue }
            entries.append(entry)
        }
        entries.sort { ($0.date, $0.top) > ($1.date, $1.top) }
        let page = try pinnedFirst.entries + entries.prefix(max(0, limit - pinnedFirst.entries.count)).map { try withSettings($0, me: me, in: tx) }
        let (chats, users) = try peers(of: page, boxPeers: rows.map(\.peer) + pinnedFirst.boxPeers, me: me, in: tx)
        let total = try tx.dialogCount(owner: me) + memberships.count
        let (dialogs, messages) = (page.map(\.dialog), page.compactMap(\.message))
        if page.count < total, before != nil || page.count == limit {
            return .dialogsSlice(.init(count: Int32(total), dialogs: dialogs, messages: messages, chats: chats, users: users))
        }
        return .dialogs(.init(dialogs: dialogs, messages: messages, chats: chats, users: users))
    }

    /// Whether `me` has a dialog with `peer`: a membership for a channel, a dialog row otherwise.
    static func exists(_ peer: PeerRef, me: Int64, in tx: any StorageReader) throws -> Bool {
        if case let .channel(id) = peer { try tx.member(channel: id, user: me) != nil } else { try tx.dialog(owner: me, peer: peer) != nil }
    }

    /// The dialogs of `peers` that exist, in that order (a peer without a dialog is left out), flagged `pinned` when
    /// they are; with the private and basic-group peers among them (whose chats and users the answer names).
    /// `pinned`: the caller's pinned dialogs when the caller has read them already.
    static func entries(for peers: [PeerRef], pinned: Set<PeerRef>? = nil, me: Int64,
                        in tx: any StorageReader) throws -> (entries: [Entry], boxPeers: [PeerRef]) {
        let pins = try pinned ?? Set(tx.pinnedDialogs(owner: me))
        var entries: [Entry] = [], boxPeers: [PeerRef] = []
        for peer in peers {
            var found: Entry?
            if case let .channel(id) = peer {
                if let member = try tx.member(channel: id, user: me) { found = try channelEntry(member, me: me, in: tx) }
            } else if let dialog = try tx.dialog(owner: me, peer: peer) {
                found = try entry(dialog, me: me, in: tx)
                boxPeers.append(peer)
            }
            guard var entry = found else { continue }
            if pins.contains(peer), case var .dialog(dialog) = entry.dialog {
                dialog.pinned = true
                entry.dialog = .dialog(dialog)
            }
            entries.append(try withSettings(entry, me: me, in: tx))
        }
        return (entries, boxPeers)
    }

    /// An entry with the caller's notification settings and draft for its chat.
    static func withSettings(_ entry: Entry, me: Int64, in tx: any StorageReader) throws -> Entry {
        guard case var .dialog(dialog) = entry.dialog else { return entry }
        dialog.notifySettings = try NotifySettings.stored(owner: me, scope: .peer(entry.peer), in: tx)
        dialog.draft = try Drafts.draft(owner: me, peer: entry.peer, in: tx)
        var entry = entry
        entry.dialog = .dialog(dialog)
        return entry
    }

    /// `messages.peerDialogs` of entries, with the caller's update state.
    static func peerDialogs(_ entries: [Entry], boxPeers: [PeerRef], me: Int64, now: Int32,
                            in tx: any StorageReader) throws -> API.messages.PeerDialogs {
        let (chats, users) = try peers(of: entries, boxPeers: boxPeers, me: me, in: tx)
        let state = try tx.state(user: me)
        return .peerDialogs(.init(
            dialogs: entries.map(\.dialog), messages: entries.compactMap(\.message), chats: chats, users: users,
            state: .state(.init(pts: state.pts, qts: state.qts, date: max(state.date, now), seq: state.seq,
                                unreadCount: Int32(clamping: try tx.unreadTotal(owner: me))))))
    }

    /// A private or basic-group dialog with its top message.
    static func entry(_ dialog: DialogRecord, me: Int64, in tx: any StorageReader) throws -> Entry {
        let message = try tx.message(owner: me, id: dialog.topMessage)
        var users: [Int64] = []
        if case let .user(id) = dialog.peer { users.append(id) }
        if let sender = message?.fromID { users.append(sender) }
        return Entry(
            peer: dialog.peer, dialog: .dialog(.init(peer: TLRendering.peer(dialog.peer), topMessage: dialog.topMessage,
                                  readInboxMaxId: dialog.readInboxMaxID, readOutboxMaxId: dialog.readOutboxMaxID,
                                  unreadCount: dialog.unreadCount, unreadMentionsCount: 0, unreadReactionsCount: 0,
                                  unreadPollVotesCount: 0, notifySettings: TLRendering.notifySettings())),
            date: dialog.topDate, top: dialog.topMessage, message: message.map(TLRendering.message), users: users, channel: nil)
    }

    /// A channel dialog of a member, with the channel's newest message; nil when the channel is gone.
    static func channelEntry(_ member: ChannelMember, me: Int64, in tx: any StorageReader) throws -> Entry? {
        guard let channel = try tx.channel(id: member.channelID) else { return nil }
        let top = try tx.channelMessages(channel: channel.id, in: IDRange(above: 0, below: .max, newestFirst: true, limit: 1)).first
        let (date, topID) = (top?.date ?? channel.date, top?.id ?? 0)
        let unread = try tx.channelUnreadCount(channel: channel.id, above: member.readInboxMaxID, viewer: me)
        return Entry(peer: .channel(channel.id), dialog: ChannelRendering.dialog(channel, member: member, topMessage: topID, unread: unread), date: date, top: topID,
                     message: top.map { ChannelRendering.message($0, viewer: me, broadcast: channel.broadcast) },
                     users: top.map { [$0.fromID] } ?? [], channel: ChannelRendering.chat(channel, member: member))
    }

    /// The chats and users a set of entries names: basic groups among `boxPeers`, the entries' channels, the caller and
    /// every user named, once each.
    static func peers(of entries: [Entry], boxPeers: [PeerRef], me: Int64,
                      in tx: any StorageReader) throws -> (chats: [API.Chat], users: [API.User]) {
        let chats = try ChatRendering.chats(among: boxPeers, viewer: me, in: tx) + entries.compactMap(\.channel)
        var seen: Set<Int64> = []
        let users = try ViewerLinks.rendered(try ([me] + entries.flatMap(\.users)).filter { seen.insert($0).inserted }
            .compactMap { try tx.user(id: $0) }, viewer: me, in: tx)
        return (chats, users)
    }
}
