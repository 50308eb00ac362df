import TL

/// Stored rows as the layer-229 objects clients receive.
enum TLRendering {
    static func peer(_ peer: PeerRef) -> API.Peer {
        switch peer {
        case let .user(id): .peerUser(.init(userId: id))
        case let .chat(id): .peerChat(.init(chatId: id))
        case let .channel(id): .peerChannel(.init(channelId: id))
        }
    }

    /// A message as its owner sees it: a `messageService` when it carries an action. Entities that do not decode are
    /// left out rather than failing the message.
    static func message(_ stored: StoredMessage) -> API.Message {
        if let bytes = stored.action, let action = try? API.MessageAction.deserialize(bytes) {
            return .messageService(.init(out: stored.out, id: stored.id, fromId: stored.fromID.map { .peerUser(.init(userId: $0)) },
                                         peerId: peer(stored.peer), date: stored.date, action: action))
        }
        return .message(.init(
            out: stored.out, id: stored.id, fromId: stored.fromID.map { .peerUser(.init(userId: $0)) },
            peerId: peer(stored.peer), date: stored.date, message: stored.text,
            entities: entities(stored.entities), editDate: stored.editDate))
    }

    static func entities(_ bytes: [UInt8]) -> [API.MessageEntity]? {
        guard !bytes.isEmpty, let decoded = try? [API.MessageEntity].deserialize(bytes), !decoded.isEmpty else { return nil }
        return decoded
    }

    /// A user as `viewer` sees them: `self` for themselves; the phone only to themselves.
    static func user(_ record: UserRecord, viewer: Int64) -> API.User {
        let isSelf = record.id == viewer
        return .user(.init(
            self: isSelf, id: record.id, accessHash: record.accessHash, firstName: record.firstName,
            lastName: record.lastName.isEmpty ? nil : record.lastName, username: record.username,
            phone: isSelf ? String(record.phone.drop(while: { $0 == "+" })) : nil,
            status: .userStatusRecently(.init())))
    }

    static func notifySettings() -> API.PeerNotifySettings {
        .peerNotifySettings(.init())
    }
}
