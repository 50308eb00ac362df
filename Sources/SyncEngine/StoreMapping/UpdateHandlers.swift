import Postbox
import TL

/// What each kind of update changes in the store: one line per constructor in `apply`, each calling one small
/// function (Telegram-iOS's one 1,246-line function over every update is the counter-example). Updates not listed
/// (typing, …) change nothing stored; they still reach the app as events.
enum UpdateHandlers {
    /// `users`: those of the container or difference the update came in (the last merged before it).
    static func apply(_ update: API.Update, users: [Int64: API.User] = [:], to mutation: inout AccountMutation) {
        switch update {
        case let .updateNewMessage(value): newMessage(value.message, &mutation)
        case let .updateNewChannelMessage(value): newMessage(value.message, &mutation)
        case let .updateEditMessage(value): editedMessage(value.message, &mutation)
        case let .updateEditChannelMessage(value): editedMessage(value.message, &mutation)
        case let .updateDeleteMessages(value): mutation.delete(commonBoxIDs: value.messages)
        case let .updateDeleteChannelMessages(value): deletedChannelMessages(value.messages, channel: value.channelId, &mutation)
        case let .updateReadHistoryInbox(value): mutation.read(inbox: StoreMapping.peerID(value.peer), maxID: value.maxId)
        case let .updateReadHistoryOutbox(value): mutation.read(outbox: StoreMapping.peerID(value.peer), maxID: value.maxId)
        case let .updateReadChannelInbox(value): mutation.read(inbox: StoreMapping.channel(value.channelId), maxID: value.maxId)
        case let .updateReadChannelOutbox(value): mutation.read(outbox: StoreMapping.channel(value.channelId), maxID: value.maxId)
        case let .updatePinnedMessages(value): pinned(value.messages, in: StoreMapping.peerID(value.peer), value.pinned, &mutation)
        case let .updatePinnedChannelMessages(value):
            pinned(value.messages, in: StoreMapping.channel(value.channelId), value.pinned, &mutation)
        case let .updateUserName(value): renamed(value, &mutation)
        case let .updateUserStatus(value): mutation.setStatus(user: value.userId, value.status)
        case let .updatePeerBlocked(value): mutation.setBlocked(StoreMapping.peerID(value.peerId), value.blocked)
        case let .updateDialogPinned(value): dialogPinned(value, &mutation)
        case let .updatePinnedDialogs(value): pinnedDialogs(value, &mutation)
        case let .updateDraftMessage(value): mutation.setDraft(StoreMapping.peerID(value.peer), StoreMapping.draft(value.draft))
        case let .updateNotifySettings(value): notifySettings(value, &mutation)
        case let .updateChatParticipants(value): chatParticipants(value.participants, &mutation)
        case let .updatePeerSettings(value): contactChanged(value.peer, users, &mutation)
        case let .updateChatDefaultBannedRights(value):
            mutation.setDefaultBannedRights(StoreMapping.peerID(value.peer), value.defaultBannedRights.flagsWord)
        default: break
        }
    }

    /// The user whose object an update is read with (not only stored): the sequencer keeps it with the update.
    static func userReadWith(_ update: API.Update) -> Int64? {
        if case let .updatePeerSettings(value) = update, case let .peerUser(peer) = value.peer { peer.userId } else { nil }
    }

    /// A user's peer settings changed, as they do when the account adds or removes them as a contact on any device:
    /// the user object sent with it says which (`contact`, the saved name, `mutual_contact`), as TDLib reads it. A min
    /// or missing user tells nothing.
    private static func contactChanged(_ peer: API.Peer, _ users: [Int64: API.User], _ mutation: inout AccountMutation) {
        guard case let .peerUser(value) = peer, case let .user(user)? = users[value.userId], !user.min else { return }
        let id = StoreMapping.user(value.userId)
        mutation.setContact(id, user.contact ? ContactEntry(peer: id, firstName: user.firstName ?? "", lastName: user.lastName ?? "",
                                                            isMutual: user.mutualContact) : nil)
    }

    /// A new message, live or from a difference; one the store cannot hold (an empty or service shape) is skipped.
    private static func newMessage(_ message: API.Message, _ mutation: inout AccountMutation) {
        if let stored = StoreMapping.message(message) { mutation.add(stored) }
        membership(message, &mutation)
    }

    /// A basic group's whole member list (or none, for a group the account may no longer see): it replaces the stored one.
    private static func chatParticipants(_ participants: API.ChatParticipants, _ mutation: inout AccountMutation) {
        switch participants {
        case let .chatParticipants(list):
            mutation.setParticipants(list.participants.compactMap(StoreMapping.participant(from:)),
                                     of: PeerID(namespace: StoreMapping.groupNamespace, id: list.chatId))
        case let .chatParticipantsForbidden(value):
            mutation.setParticipants([], of: PeerID(namespace: StoreMapping.groupNamespace, id: value.chatId))
        }
    }

    /// A service message that adds or removes members moves the chat's stored member list along (`ParticipantsView`).
    private static func membership(_ message: API.Message, _ mutation: inout AccountMutation) {
        guard case let .messageService(service) = message else { return }
        let chat = StoreMapping.peerID(service.peerId), actor = service.fromId.map(StoreMapping.peerID)
        switch service.action {
        case let .messageActionChatAddUser(value):
            for id in value.users { mutation.memberJoined(StoreMapping.user(id), chat: chat, inviter: actor, date: service.date) }
        case let .messageActionChatJoinedByLink(value):
            if let actor { mutation.memberJoined(actor, chat: chat, inviter: StoreMapping.user(value.inviterId), date: service.date) }
        case .messageActionChatJoinedByRequest:
            if let actor { mutation.memberJoined(actor, chat: chat, inviter: nil, date: service.date) }
        case let .messageActionChatDeleteUser(value):
            mutation.memberLeft(StoreMapping.user(value.userId), chat: chat)
        default:
            break
        }
    }

    /// An edit replaces the stored message's text and entities.
    private static func editedMessage(_ message: API.Message, _ mutation: inout AccountMutation) {
        if let stored = StoreMapping.message(message) { mutation.edit(stored) }
    }

    /// Pins name their chat, so the ids name stored messages directly.
    private static func pinned(_ ids: [Int32], in peer: PeerID, _ pinned: Bool, _ mutation: inout AccountMutation) {
        mutation.pin(ids.map { MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: $0) }, pinned)
    }

    /// A user's new names: the stored user is changed in place (the update may come without the user, and names are
    /// all it says). The active username Telegram lists first is the one a user shows.
    private static func renamed(_ update: API.Update.UpdateUserName, _ mutation: inout AccountMutation) {
        let name = update.usernames.lazy.compactMap { username -> String? in
            guard case let .username(value) = username, value.active else { return nil }
            return value.username
        }.first
        mutation.rename(user: update.userId, firstName: update.firstName, lastName: update.lastName, username: name)
    }

    /// A chat pinned or unpinned (folders are not kept: their pins are passed over).
    private static func dialogPinned(_ update: API.Update.UpdateDialogPinned, _ mutation: inout AccountMutation) {
        guard update.folderId == nil, case let .dialogPeer(dialog) = update.peer else { return }
        let peer = StoreMapping.peerID(dialog.peer)
        if peer.fitsStore { mutation.changePins(.toggle(peer, pinned: update.pinned)) }
    }

    /// The whole pinned order; without one, the client is to ask (`messages.getPinnedDialogs`), which the next chat-list
    /// load does.
    private static func pinnedDialogs(_ update: API.Update.UpdatePinnedDialogs, _ mutation: inout AccountMutation) {
        guard update.folderId == nil, let order = update.order else { return }
        let peers = order.compactMap { dialog -> PeerID? in
            guard case let .dialogPeer(value) = dialog else { return nil }
            return StoreMapping.peerID(value.peer).storable
        }
        mutation.changePins(.order(peers))
    }

    /// A chat's notification settings, or those of a kind of chat (every private chat, group or channel).
    private static func notifySettings(_ update: API.Update.UpdateNotifySettings, _ mutation: inout AccountMutation) {
        let settings = StoreMapping.notificationSettings(update.notifySettings)
        switch update.peer {
        case let .notifyPeer(value): mutation.setNotificationSettings(StoreMapping.peerID(value.peer), settings)
        case .notifyUsers: mutation.setNotificationSettings(.privateChats, settings)
        case .notifyChats: mutation.setNotificationSettings(.groups, settings)
        case .notifyBroadcasts: mutation.setNotificationSettings(.channels, settings)
        default: break   // a forum topic's: topics are not kept
        }
    }

    /// Channel ids are the channel's own, so they name stored messages directly (common-box ids need a lookup).
    private static func deletedChannelMessages(_ ids: [Int32], channel: Int64, _ mutation: inout AccountMutation) {
        let peer = StoreMapping.channel(channel)
        mutation.delete(ids.map { MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: $0) })
    }
}

extension AccountMutation {
    /// The store's share of a batch of sequencer outputs, with the state the batch ends in as cursor.
    public init(_ outputs: [SequencerOutput], state: SyncState) {
        self.init()
        var users: [Int64: API.User] = [:]
        for output in outputs {
            switch output {
            case let .deliver(update): UpdateHandlers.apply(update, users: users, to: &self)
            case let .entities(named, chats):
                merge(users: named, chats: chats)
                users = Dictionary(named.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            case let .channelReset(channel, latest):
                resetHistory(ofChannel: channel)
                for message in latest { if let stored = StoreMapping.message(message) { add(stored) } }
            case .differenceTooLong: reopenCommonHistories()
            case .getDifference, .getChannelDifference: break
            }
        }
        setCursor(state)
    }
}
