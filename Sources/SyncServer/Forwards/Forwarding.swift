import MTProto
import TL

/// `messages.forwardMessages`: each message named is sent again to the destination, as a new message of the caller
/// with its own `random_id` (retries are recognised per message, as sends are), one pts per message in each box it
/// reaches — and with a `fwd_from` header naming where it first came from: a user (private chats, groups,
/// supergroups) or a broadcast channel and its post, at the original date. A message that is a forward itself keeps
/// its first header; `drop_author` sends the copies without one, as the caller's own.
enum Forwarding {
    /// A message to forward: what its copies carry.
    struct Source: Sendable {
        let text: String
        let entities: [UInt8]
        /// The media, carried as it is (the copies name the same file).
        let media: OutgoingMedia?
        /// `MessageFwdHeader` as TL bytes; nil with `drop_author`.
        let header: [UInt8]?
        /// Who the header names, for the `users` and `chats` of what carries the copies.
        let origin: PeerRef?
    }

    /// The messages `ids` of the chat `peer` as the caller sees them, in the order given; ids that name nothing there
    /// and service messages (which cannot be forwarded) are passed over.
    static func sources(_ ids: [Int32], from peer: PeerRef, me: Int64, dropAuthor: Bool, in tx: any StorageReader) throws -> [Source] {
        switch peer {
        case .user, .chat:
            return try ids.compactMap { id in
                guard let message = try tx.message(owner: me, id: id), message.peer == peer, message.action == nil else { return nil }
                let author = PeerRef.user(message.fromID ?? me)
                return source(text: message.text, entities: message.entities,
                              media: message.outgoingMedia, forwarded: message.forward,
                              origin: author, post: nil, date: message.date, dropAuthor: dropAuthor)
            }
        case let .channel(channelID):
            let (channel, _) = try ChannelAccess.membership(of: channelID, user: me, in: tx)
            return try ids.compactMap { id in
                guard let message = try tx.channelMessage(channel: channelID, id: id), message.action.isEmpty else { return nil }
                return source(text: message.text, entities: message.entities,
                              media: message.outgoingMedia, forwarded: message.forward,
                              origin: channel.broadcast ? .channel(channelID) : .user(message.fromID),
                              post: channel.broadcast ? message.id : nil, date: message.date, dropAuthor: dropAuthor)
            }
        }
    }

    private static func source(text: String, entities: [UInt8], media: OutgoingMedia?, forwarded: [UInt8]?, origin: PeerRef,
                               post: Int32?, date: Int32, dropAuthor: Bool) -> Source {
        guard !dropAuthor else { return Source(text: text, entities: entities, media: media, header: nil, origin: nil) }
        if let forwarded, let header = TLRendering.forwardHeader(forwarded) {
            return Source(text: text, entities: entities, media: media, header: forwarded, origin: Self.origin(of: header))
        }
        let header = API.MessageFwdHeader.messageFwdHeader(.init(fromId: TLRendering.peer(origin), date: date, channelPost: post))
        return Source(text: text, entities: entities, media: media, header: header.serialized(), origin: origin)
    }

    /// The peer a stored header names.
    static func origin(of header: API.MessageFwdHeader) -> PeerRef? {
        guard case let .messageFwdHeader(value) = header else { return nil }
        switch value.fromId {
        case let .peerUser(user)?: return .user(user.userId)
        case let .peerChannel(channel)?: return .channel(channel.channelId)
        default: return nil
        }
    }

    /// The users and channels the headers of `sources` name, as `viewer` sees them (a channel the viewer is not in
    /// is shown as left).
    static func origins(of sources: [Source], viewer: Int64, in tx: any StorageReader) throws -> (users: [UserRecord], chats: [API.Chat]) {
        var users: [UserRecord] = [], chats: [API.Chat] = []
        for origin in Set(sources.compactMap(\.origin)).sorted(by: { ($0.typeCode, $0.id) < ($1.typeCode, $1.id) }) {
            switch origin {
            case let .user(id): if let user = try tx.user(id: id) { users.append(user) }
            case let .channel(id):
                if let channel = try tx.channel(id: id) {
                    chats.append(ChannelRendering.chat(channel, member: try tx.member(channel: id, user: viewer)))
                }
            case .chat: break
            }
        }
        return (users, chats)
    }
}
