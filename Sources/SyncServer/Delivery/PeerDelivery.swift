import MTProto
import TL

/// What a message carries, whatever peer it goes to: its text and entities, the message it replies to or the
/// forward header it was copied with (`Forwarding`), and its media.
struct OutgoingMessage: Sendable {
    var text: String
    var entities: [UInt8]
    var replyTo: Int32? = nil
    var forward: [UInt8]? = nil
    var media: OutgoingMedia? = nil
    /// The album it belongs to.
    var groupedID: Int64? = nil
}

/// A message's media: `MessageMedia` as TL bytes (the same for every viewer: a file's reference does not depend on
/// who reads it) and its kind for the search filters.
struct OutgoingMedia: Sendable, Equatable {
    var bytes: [UInt8]
    var kind: MediaKind
}

/// A message delivered to a peer, by the kind of peer: a private chat's two copies, a basic group's copy per member,
/// a channel's one post. What every sender of messages needs of it (the sender's answer, the owners' pushes, the
/// destination as the sender sees it) is read here, so that sends, forwards and every later kind of message share it.
enum Delivered: Sendable {
    case privateMessage(SentPrivateMessage, recipient: UserRecord)
    case chat(ChatDelivery)
    case channel(ChannelPost)

    /// A retry of a send already stored (its `random_id` seen): nothing new to push.
    var isRepeat: Bool {
        switch self {
        case let .privateMessage(sent, _): sent.isRepeat
        case let .chat(delivery): delivery.isRepeat
        case let .channel(post): post.isRepeat
        }
    }

    /// What the sender's answer carries for it: `updateMessageID` and the new message as the sender sees it.
    func senderUpdates(randomID: Int64, viewer: Int64) throws(RPCError) -> [API.Update] {
        switch self {
        case let .privateMessage(sent, _):
            return [.updateMessageID(.init(id: sent.senderCopy.id, randomId: randomID)), Self.newMessage(sent.senderCopy, pts: sent.senderPts)]
        case let .chat(delivery):
            guard let copy = delivery.senderCopy else { throw .internalError }
            return [.updateMessageID(.init(id: copy.message.id, randomId: randomID)), Self.newMessage(copy.message, pts: copy.pts)]
        case let .channel(post):
            return [.updateMessageID(.init(id: post.message.id, randomId: randomID)),
                    .updateNewChannelMessage(.init(message: ChannelRendering.message(post.message, viewer: viewer, broadcast: post.channel.broadcast),
                                                   pts: post.pts, ptsCount: 1))]
        }
    }

    /// The new-message update of each box owner it reached (a private chat's sides, a group's members, the sender
    /// first), none for a repeat; a channel post has none (it is one channel event, `post`).
    var ownerUpdates: [(owner: Int64, update: API.Update)] {
        guard !isRepeat else { return [] }
        switch self {
        case let .privateMessage(sent, recipient):
            let mine = (owner: sent.senderCopy.owner, update: Self.newMessage(sent.senderCopy, pts: sent.senderPts))
            guard recipient.id != sent.senderCopy.owner, let theirs = sent.recipientCopy else { return [mine] }
            return [mine, (recipient.id, Self.newMessage(theirs, pts: sent.recipientPts))]
        case let .chat(delivery):
            return delivery.copies.map { ($0.message.owner, Self.newMessage($0.message, pts: $0.pts)) }
        case .channel:
            return []
        }
    }

    /// The channel post, when it is a new one.
    var post: ChannelPost? {
        if case let .channel(post) = self, !post.isRepeat { post } else { nil }
    }

    /// The destination as `viewer` (the sender) sees it: the recipient of a private message, or the group or channel.
    func destination(viewer: Int64, in tx: any StorageReader) throws -> (users: [UserRecord], chats: [API.Chat]) {
        switch self {
        case let .privateMessage(_, recipient): ([recipient], [])
        case let .chat(delivery): ([], [ChatRendering.chat(delivery.chat, memberCount: delivery.memberCount, viewer: viewer)])
        case let .channel(post): ([], [ChannelRendering.chat(post.channel, member: try tx.member(channel: post.channel.id, user: viewer))])
        }
    }

    private static func newMessage(_ message: StoredMessage, pts: Int32) -> API.Update {
        .updateNewMessage(.init(message: TLRendering.message(message), pts: pts, ptsCount: 1))
    }
}

/// The one way a message reaches a peer (core.telegram.org/api/updates: a copy in each box it reaches, each with its
/// pts, or one post in a channel's box): a private chat (`PrivateMessaging`, the recipient's copy left out when they
/// blocked the sender), a basic group (`BasicGroups`), a channel or supergroup (`ChannelMessaging`). Runs inside the
/// caller's transaction, which holds the boxes' locks (`PeerResolution.boxes`).
enum PeerDelivery {
    static func deliver(_ message: OutgoingMessage, from me: Int64, to peer: PeerRef, randomID: Int64, date: Int32,
                        in tx: any StorageWriter) throws -> Delivered {
        switch peer {
        case let .user(recipientID):
            guard let recipient = try tx.user(id: recipientID) else { throw RPCError.badRequest("PEER_ID_INVALID") }
            return .privateMessage(try PrivateMessaging.send(
                message, from: me, to: recipientID, randomID: randomID, date: date,
                reachesRecipient: try Blocking.delivers(from: me, to: recipient, in: tx), in: tx), recipient: recipient)
        case let .chat(chatID):
            return .chat(try BasicGroups.send(message, from: me, to: chatID, randomID: randomID, date: date, in: tx))
        case let .channel(channelID):
            return .channel(try ChannelMessaging.post(message, from: me, to: channelID, randomID: randomID, date: date, in: tx))
        }
    }
}
