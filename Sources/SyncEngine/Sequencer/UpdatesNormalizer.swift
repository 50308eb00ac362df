import TL

/// One `Updates` in the shape every form shares (UPDATE-RULES §3).
struct UpdateContainer: Equatable, Sendable {
    var updates: [API.Update]
    var users: [API.User] = []
    var chats: [API.Chat] = []
    /// 0: no date change.
    var date: Int32 = 0
    /// 0: no seq check (`updateShort`, and containers the server does not sequence).
    var seqStart: Int32 = 0
    var seq: Int32 = 0
}

/// What a pushed `Updates` asks of the sequencer.
enum NormalizedUpdates: Equatable, Sendable {
    case container(UpdateContainer)
    /// `updatesTooLong`: fetch a difference at once.
    case tooLong
    /// A short form naming a user the client cannot address (or a passive `updateShortSentMessage`): fetch a
    /// difference instead of delivering it.
    case incomplete
}

/// Expands the seven `Updates` constructors into containers. Short messages become `updateNewMessage` with a
/// full `message`; a sent message's result is joined with its request (the only place it is valid).
struct UpdatesNormalizer {
    let selfID: Int64

    func normalize(_ updates: API.Updates, knowledge: PeerKnowledge) -> NormalizedUpdates {
        switch updates {
        case .updatesTooLong:
            return .tooLong
        case let .updateShort(short):
            return .container(UpdateContainer(updates: [short.update]))
        case let .updateShortMessage(short):
            guard knowledge.knowsUser(short.userId) else { return .incomplete }
            let message = API.Message.message(.init(
                out: short.out, mentioned: short.mentioned, mediaUnread: short.mediaUnread, silent: short.silent, id: short.id,
                fromId: .peerUser(.init(userId: short.out ? selfID : short.userId)), peerId: .peerUser(.init(userId: short.userId)),
                fwdFrom: short.fwdFrom, viaBotId: short.viaBotId, replyTo: short.replyTo, date: short.date,
                message: short.message, entities: short.entities, ttlPeriod: short.ttlPeriod))
            return .container(UpdateContainer(updates: [
                .updateNewMessage(.init(message: message, pts: short.pts, ptsCount: short.ptsCount)),
            ]))
        case let .updateShortChatMessage(short):
            guard knowledge.knowsUser(short.fromId) else { return .incomplete }
            let message = API.Message.message(.init(
                out: short.out, mentioned: short.mentioned, mediaUnread: short.mediaUnread, silent: short.silent, id: short.id,
                fromId: .peerUser(.init(userId: short.fromId)), peerId: .peerChat(.init(chatId: short.chatId)),
                fwdFrom: short.fwdFrom, viaBotId: short.viaBotId, replyTo: short.replyTo, date: short.date,
                message: short.message, entities: short.entities, ttlPeriod: short.ttlPeriod))
            return .container(UpdateContainer(updates: [
                .updateNewMessage(.init(message: message, pts: short.pts, ptsCount: short.ptsCount)),
            ]))
        case .updateShortSentMessage:
            return .incomplete   // only meaningful as the result of a send (`sent(_:for:)`)
        case let .updates(value):
            return .container(UpdateContainer(updates: value.updates, users: value.users, chats: value.chats,
                                              date: value.date, seqStart: value.seq, seq: value.seq))
        case let .updatesCombined(value):
            return .container(UpdateContainer(updates: value.updates, users: value.users, chats: value.chats,
                                              date: value.date, seqStart: value.seqStart, seq: value.seq))
        }
    }

    /// `updateShortSentMessage` answering `messages.sendMessage`: the message rebuilt from the request and the result.
    /// A send to a channel is ordered in that channel's box (TDL), so it becomes `updateNewChannelMessage`.
    func sentMessage(_ sent: API.Updates.UpdateShortSentMessage, request: API.functions.messages.SendMessage) -> API.Update? {
        let peer: API.Peer
        switch request.peer {
        case let .inputPeerUser(user): peer = .peerUser(.init(userId: user.userId))
        case let .inputPeerChat(chat): peer = .peerChat(.init(chatId: chat.chatId))
        case let .inputPeerChannel(channel): peer = .peerChannel(.init(channelId: channel.channelId))
        case .inputPeerSelf: peer = .peerUser(.init(userId: selfID))
        default: return nil
        }
        let message = API.Message.message(.init(
            out: true, silent: request.silent, id: sent.id, fromId: .peerUser(.init(userId: selfID)), peerId: peer,
            replyTo: Self.replyHeader(request.replyTo), date: sent.date, message: request.message, media: sent.media,
            entities: sent.entities ?? request.entities,
            ttlPeriod: sent.ttlPeriod))
        if case .peerChannel = peer {
            return .updateNewChannelMessage(.init(message: message, pts: sent.pts, ptsCount: sent.ptsCount))
        }
        return .updateNewMessage(.init(message: message, pts: sent.pts, ptsCount: sent.ptsCount))
    }

    /// The header a sent reply carries, as the server renders it: the replied message's id.
    static func replyHeader(_ input: API.InputReplyTo?) -> API.MessageReplyHeader? {
        guard case let .inputReplyToMessage(reply)? = input else { return nil }
        return .messageReplyHeader(.init(replyToMsgId: reply.replyToMsgId))
    }

    /// The peers an update's message names, which must resolve for it to be complete.
    static func peers(of update: API.Update) -> [API.Peer] {
        let message: API.Message? = switch update {
        case let .updateNewMessage(u): u.message
        case let .updateEditMessage(u): u.message
        case let .updateNewChannelMessage(u): u.message
        case let .updateEditChannelMessage(u): u.message
        default: nil
        }
        switch message {
        case let .message(value)?: return [value.peerId] + (value.fromId.map { [$0] } ?? [])
        case let .messageService(value)?: return [value.peerId] + (value.fromId.map { [$0] } ?? [])
        default: return []
        }
    }
}
