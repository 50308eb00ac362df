import TL

/// The peers a message or an update names, which the answer or push that carries it must carry in its `users` and
/// `chats`: clients index those lists while they read a service message's members, a forward's origin, a pinned
/// dialog or a participant (Pyrogram-family clients fail on an id that is not there; Telethon shows nothing). One
/// place for every kind this server sends; the server test suites check each answer and push against a walker over
/// all of TL (`PeerReferences` in SyncTesting), so a kind added later that names a peer is caught there.
enum NamedPeers {
    static func of(_ peer: API.Peer) -> PeerRef {
        switch peer {
        case let .peerUser(value): .user(value.userId)
        case let .peerChat(value): .chat(value.chatId)
        case let .peerChannel(value): .channel(value.channelId)
        }
    }

    /// The users a service message's action names (members added, removed, the group a channel came from).
    static func of(action: API.MessageAction) -> [PeerRef] {
        switch action {
        case let .messageActionChatCreate(value): value.users.map(PeerRef.user)
        case let .messageActionChatAddUser(value): value.users.map(PeerRef.user)
        case let .messageActionChatDeleteUser(value): [.user(value.userId)]
        case let .messageActionChatJoinedByLink(value): [.user(value.inviterId)]
        case let .messageActionChatMigrateTo(value): [.channel(value.channelId)]
        case let .messageActionChannelMigrateFrom(value): [.chat(value.chatId)]
        default: []
        }
    }

    static func of(forward header: API.MessageFwdHeader?) -> [PeerRef] {
        guard case let .messageFwdHeader(value)? = header else { return [] }
        return [value.fromId, value.savedFromPeer].compactMap { $0.map(of) }
    }

    static func of(_ message: API.Message) -> [PeerRef] {
        switch message {
        case let .message(value):
            return [value.peerId, value.fromId].compactMap { $0.map(of) } + of(forward: value.fwdFrom)
                + (value.viaBotId.map { [PeerRef.user($0)] } ?? [])
        case let .messageService(value):
            return [value.peerId, value.fromId].compactMap { $0.map(of) } + of(action: value.action)
        case .messageEmpty:
            return []
        }
    }

    /// A stored message of a box: its chat, sender, forward origin and action's users (service messages and
    /// forwards are decoded; they are few).
    static func of(_ stored: StoredMessage) -> [PeerRef] {
        var named = [stored.peer] + (stored.fromID.map { [PeerRef.user($0)] } ?? [])
        if let header = stored.forward { named += of(forward: TLRendering.forwardHeader(header)) }
        if let bytes = stored.action, let action = try? API.MessageAction.deserialize(bytes) { named += of(action: action) }
        return named
    }

    /// A channel's message: its sender, forward origin and action's users (the channel itself is carried apart).
    static func of(_ stored: ChannelMessage) -> [PeerRef] {
        var named: [PeerRef] = [.user(stored.fromID)]
        if let header = stored.forward { named += of(forward: TLRendering.forwardHeader(header)) }
        if !stored.action.isEmpty, let action = try? API.MessageAction.deserialize(stored.action) { named += of(action: action) }
        return named
    }

    /// The peers an update names, for the kinds this server sends.
    static func of(_ update: API.Update) -> [PeerRef] {
        switch update {
        case let .updateNewMessage(value): of(value.message)
        case let .updateEditMessage(value): of(value.message)
        case let .updateNewChannelMessage(value): of(value.message)
        case let .updateEditChannelMessage(value): of(value.message)
        case let .updateChatParticipants(value):
            if case let .chatParticipants(list) = value.participants {
                list.participants.flatMap { participant -> [PeerRef] in
                    switch participant {
                    case let .chatParticipant(member): [.user(member.userId), .user(member.inviterId)]
                    case let .chatParticipantCreator(member): [.user(member.userId)]
                    case let .chatParticipantAdmin(member): [.user(member.userId), .user(member.inviterId)]
                    }
                }
            } else {
                []
            }
        case let .updateDialogPinned(value): if case let .dialogPeer(dialog) = value.peer { [of(dialog.peer)] } else { [] }
        case let .updatePinnedDialogs(value):
            (value.order ?? []).compactMap { if case let .dialogPeer(dialog) = $0 { of(dialog.peer) } else { nil } }
        case let .updateNotifySettings(value): if case let .notifyPeer(notify) = value.peer { [of(notify.peer)] } else { [] }
        case let .updateDraftMessage(value): [of(value.peer)]
        case let .updatePeerSettings(value): [of(value.peer)]
        case let .updatePeerBlocked(value): [of(value.peerId)]
        case let .updateChatDefaultBannedRights(value): [of(value.peer)]
        case let .updatePinnedMessages(value): [of(value.peer)]
        case let .updateReadHistoryInbox(value): [of(value.peer)]
        case let .updateReadHistoryOutbox(value): [of(value.peer)]
        case let .updateUserName(value): [.user(value.userId)]
        default: []
        }
    }
}

/// Peers as the `users` and `chats` of what a viewer receives.
enum PeerRendering {
    /// The peer a rendered chat is.
    static func ref(_ chat: API.Chat) -> PeerRef? {
        switch chat {
        case let .chat(value): .chat(value.id)
        case let .chatForbidden(value): .chat(value.id)
        case let .chatEmpty(value): .chat(value.id)
        case let .channel(value): .channel(value.id)
        case let .channelForbidden(value): .channel(value.id)
        case .community, .communityForbidden: nil
        }
    }

    /// The basic groups and channels among `peers`, once each, as `viewer` sees them (a channel they are not in is
    /// shown as left).
    static func chats(among peers: [PeerRef], viewer: Int64, in tx: any StorageReader) throws -> [API.Chat] {
        var chats = try ChatRendering.chats(among: peers, viewer: viewer, in: tx)
        var seen: Set<Int64> = []
        for case let .channel(id) in peers where seen.insert(id).inserted {
            guard let channel = try tx.channel(id: id) else { continue }
            chats.append(ChannelRendering.chat(channel, member: try tx.member(channel: id, user: viewer)))
        }
        return chats
    }

    /// The user records among `peers`, once each, in the order named.
    static func users(among peers: [PeerRef], in tx: any StorageReader) throws -> [UserRecord] {
        var seen: Set<Int64> = []
        return try peers.compactMap { peer in
            guard case let .user(id) = peer, seen.insert(id).inserted else { return nil }
            return try tx.user(id: id)
        }
    }
}
