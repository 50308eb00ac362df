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
                                         peerId: peer(stored.peer), replyTo: replyHeader(stored.replyTo), date: stored.date,
                                         action: action))
        }
        return .message(.init(
            out: stored.out, pinned: stored.pinned, id: stored.id, fromId: stored.fromID.map { .peerUser(.init(userId: $0)) },
            peerId: peer(stored.peer), fwdFrom: forwardHeader(stored.forward), replyTo: replyHeader(stored.replyTo), date: stored.date,
            message: text(stored.text), media: media(stored.media),
            entities: entities(stored.entities), editDate: stored.editDate, groupedId: stored.groupedID))
    }

    /// `messageReplyHeader` of a reply to message `id` of the same chat (nil: not a reply).
    static func replyHeader(_ id: Int32?) -> API.MessageReplyHeader? {
        id.map { .messageReplyHeader(.init(replyToMsgId: $0)) }
    }

    /// A forwarded message's stored header (nil: not forwarded, or a header that does not decode).
    static func forwardHeader(_ bytes: [UInt8]?) -> API.MessageFwdHeader? {
        bytes.flatMap { try? API.MessageFwdHeader.deserialize($0) }
    }

    /// A message's stored media (nil: none, or bytes that do not decode: the message is shown without it).
    static func media(_ bytes: [UInt8]?) -> API.MessageMedia? {
        bytes.flatMap { try? API.MessageMedia.deserialize($0) }
    }

    /// A stored text as sent: rows written before the input limits existed are cut to them (`InputLimits`).
    static func text(_ stored: String) -> String {
        stored.clamped(toUnits: InputLimits.messageLength)
    }

    /// Stored entities; those of a row written before the input limits existed, over them, are left out.
    static func entities(_ bytes: [UInt8]) -> [API.MessageEntity]? {
        guard !bytes.isEmpty, bytes.count <= 8 + InputLimits.entityBytes, let decoded = try? [API.MessageEntity].deserialize(bytes), !decoded.isEmpty else { return nil }
        return decoded
    }

    /// A user as `viewer` sees them: `self` for themselves; the contact flags, the phone and, for a contact, the name the
    /// viewer saved them under, as `link` says (Telegram shows a contact by the viewer's name for them; the phone always
    /// to themselves). `status`: where the server knows it (`PresenceRegistry`), "recently" elsewhere.
    static func user(_ record: UserRecord, viewer: Int64, status: API.UserStatus = .userStatusRecently(.init()),
                     link: ContactLink = .none) -> API.User {
        let isSelf = record.id == viewer
        let (firstName, lastName) = link.saved.map { ($0.firstName, $0.lastName) } ?? (record.firstName, record.lastName)
        return .user(.init(
            self: isSelf, contact: link.isContact, mutualContact: link.isMutual, id: record.id, accessHash: record.accessHash,
            firstName: firstName.clamped(toUnits: InputLimits.nameLength),
            lastName: lastName.isEmpty ? nil : lastName.clamped(toUnits: InputLimits.nameLength),
            username: record.username?.clamped(toUnits: InputLimits.lookupBytes),
            phone: isSelf || link.showsPhone ? String(record.phone.drop(while: { $0 == "+" })) : nil,
            photo: record.photo.flatMap { try? API.UserProfilePhoto.deserialize($0) }, status: status))
    }

    static func notifySettings() -> API.PeerNotifySettings {
        .peerNotifySettings(.init())
    }
}

extension TLRendering {
    /// The logged `updateNewMessage` of a stored message, as bytes (what `UserBox` appends to the update log).
    ///
    /// A plain text message without entities — nearly every send — is written field by field into one buffer: building
    /// the 50-field `API.Message` and its enum wrappers to encode them was a tenth of the writer's time per send. Anything
    /// else (service messages, entities, which are validated on the way) takes the generic encoder. Both produce the same
    /// bytes (`TLRenderingTests`).
    static func newMessageUpdate(_ stored: StoredMessage, pts: Int32) -> [UInt8] {
        guard stored.action == nil, stored.entities.isEmpty, stored.replyTo == nil, !stored.pinned, stored.forward == nil,
              stored.media == nil, stored.groupedID == nil else {
            return API.Update.updateNewMessage(.init(message: message(stored), pts: pts, ptsCount: 1)).serialized()
        }
        var writer = TLWriter(capacity: 64 + stored.text.utf8.count)
        writer.writeUInt32(API.Update.UpdateNewMessage.constructorID)
        writer.writeUInt32(API.Message.Message.constructorID)
        var flags: UInt32 = 0
        if stored.out { flags |= 1 << 1 }
        if stored.fromID != nil { flags |= 1 << 8 }
        if stored.editDate != nil { flags |= 1 << 15 }
        writer.writeUInt32(flags)
        writer.writeUInt32(0)                                   // flags2
        writer.writeInt32(stored.id)
        if let from = stored.fromID { peer(.user(from)).encode(to: &writer) }
        peer(stored.peer).encode(to: &writer)
        writer.writeInt32(stored.date)
        writer.writeString(stored.text)
        if let editDate = stored.editDate { writer.writeInt32(editDate) }
        writer.writeInt32(pts)
        writer.writeInt32(1)                                    // pts_count
        return writer.bytes
    }
}
