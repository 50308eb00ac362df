import Foundation
import Postbox
import TL

/// How Telegram's peers and messages are keyed in Postbox (which knows no TL): peer namespaces for users, basic
/// groups and channels; message namespace 0 for the server's ("cloud") messages. A stored message keeps its whole
/// TL form in `attributes`, so what Postbox does not model (entities, media, replies) is never lost.
public enum StoreMapping {
    /// The peer namespace of users.
    public static let userNamespace: Int32 = 0
    /// The peer namespace of basic groups.
    public static let groupNamespace: Int32 = 1
    /// The peer namespace of channels and supergroups.
    public static let channelNamespace: Int32 = 2
    /// The message namespace of messages the server numbered.
    public static let cloudMessages: Int32 = 0
    /// The tag of pinned messages: a history view with it shows a chat's pinned messages.
    public static let pinnedTag = MessageTags(rawValue: 1 << 0)
    /// The tags of messages with media, by kind: a history view with one shows a chat's photos, videos, files…
    public static let photoTag = MessageTags(rawValue: 1 << 1)
    public static let videoTag = MessageTags(rawValue: 1 << 2)
    public static let fileTag = MessageTags(rawValue: 1 << 3)
    public static let musicTag = MessageTags(rawValue: 1 << 4)
    public static let voiceTag = MessageTags(rawValue: 1 << 5)

    /// The media tag of a message's media (none without).
    static func mediaTag(_ media: MessageMedia?) -> MessageTags {
        switch media {
        case .photo?: photoTag
        case let .document(document)?:
            switch document.kind {
            case .video, .roundVideo, .gif: videoTag
            case .music: musicTag
            case .voice: voiceTag
            case .file: fileTag
            }
        case nil: []
        }
    }
    /// The namespaces whose message ids the common box numbers (unique across them, per account).
    public static let commonBoxPeers: [Int32] = [userNamespace, groupNamespace]

    /// The store's peer for a TL peer.
    public static func peerID(_ peer: API.Peer) -> PeerID {
        switch peer {
        case let .peerUser(value): PeerID(namespace: userNamespace, id: value.userId)
        case let .peerChat(value): PeerID(namespace: groupNamespace, id: value.chatId)
        case let .peerChannel(value): PeerID(namespace: channelNamespace, id: value.channelId)
        }
    }

    /// The store's peer for channel `id`.
    public static func channel(_ id: Int64) -> PeerID { PeerID(namespace: channelNamespace, id: id) }
    /// The store's peer for user `id`.
    public static func user(_ id: Int64) -> PeerID { PeerID(namespace: userNamespace, id: id) }

    /// The stored form of a message; nil for `messageEmpty` (nothing to store).
    public static func message(_ message: API.Message) -> Message? {
        let (id, peer, from, date, out, text): (Int32, API.Peer, API.Peer?, Int32, Bool, String)
        var pinned = false
        var (replyHeader, forwardHeader): (API.MessageReplyHeader?, API.MessageFwdHeader?) = (nil, nil)
        switch message {
        case let .message(value):
            (id, peer, from, date, out, text) = (value.id, value.peerId, value.fromId, value.date, value.out, value.message)
            (pinned, replyHeader, forwardHeader) = (value.pinned, value.replyTo, value.fwdFrom)
        case let .messageService(value):   // "pinned a message" replies to the pinned one
            (id, peer, from, date, out, text) = (value.id, value.peerId, value.fromId, value.date, value.out, "")
            replyHeader = value.replyTo
        case .messageEmpty: return nil
        }
        // Telegram's message ids are positive, and the id space's top is the holes' sentinel: a server's other ids
        // are not stored (holes and history ranges are built on them).
        guard id > 0, id < Int32.max - 1 else { return nil }
        let chat = peerID(peer)
        // Postbox keeps a peer id in 56 bits: a message of a peer outside them would be stored under another peer.
        guard chat.fitsStore, from.map({ peerID($0).fitsStore }) ?? true else { return nil }
        return Message(id: MessageID(peer: chat, namespace: cloudMessages, id: id), timestamp: date,
                       flags: out ? [] : [.incoming], tags: (pinned ? pinnedTag : []).union(mediaTag(MessageMedia(message))),
                       author: from.map { peerID($0) } ?? (out ? nil : chat),
                       text: text, attributes: message.serialized(), reply: replyHeader.flatMap(reply(from:)),
                       forward: forwardHeader.map(forward(from:)))
    }

    /// A reply header as stored: nil for a story reply or one without a message id (a quote of a message not kept).
    static func reply(from header: API.MessageReplyHeader) -> ReplyHeader? {
        guard case let .messageReplyHeader(value) = header, let id = value.replyToMsgId else { return nil }
        return ReplyHeader(messageID: id, peer: value.replyToPeerId.map(peerID)?.storable,
                           threadTopID: value.replyToTopId)
    }

    /// A forward header as stored: the first author (a user, or the channel that posted it), the original date, and the
    /// channel post it was.
    static func forward(from header: API.MessageFwdHeader) -> ForwardHeader {
        guard case let .messageFwdHeader(value) = header else { return ForwardHeader(author: nil, date: 0) }
        let author = value.fromId.map(peerID)?.storable
        let source = value.channelPost.flatMap { post in
            author.map { MessageID(peer: $0, namespace: cloudMessages, id: post) }
        }
        return ForwardHeader(author: author, date: value.date, source: source)
    }

    /// The position above every stored message of `peer` (a read from it, `.older`, starts at the newest).
    public static func newestIndex(in peer: PeerID) -> MessageIndex {
        MessageIndex(id: MessageID(peer: peer, namespace: cloudMessages, id: .max), timestamp: .max)
    }

    /// Pins or unpins a stored message: its tag, and the flag in its TL form (so the two never disagree).
    public static func setPinned(_ message: inout Message, _ pinned: Bool) {
        if pinned { message.tags.insert(pinnedTag) } else { message.tags.remove(pinnedTag) }
        guard case var .message(value)? = try? API.Message.deserialize(message.attributes) else { return }
        value.pinned = pinned
        message.attributes = API.Message.message(value).serialized()
    }

    /// Replaces a stored message's text, in its TL form too (an edit made here, shown before the server confirms it).
    public static func setText(_ message: inout Message, _ text: String) {
        message.text = text
        guard case var .message(value)? = try? API.Message.deserialize(message.attributes) else { return }
        value.message = text
        message.attributes = API.Message.message(value).serialized()
    }


    /// The sequencer's state as the store's cursor. Keys sorted, so equal states give equal bytes (the account's
    /// state manager compares stored cursors by their bytes).
    public static func cursor(_ state: SyncState) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? [UInt8](encoder.encode(state))) ?? []
    }

    /// The state stored in the cursor blob, nil when the blob is not one.
    public static func state(fromCursor bytes: [UInt8]) -> SyncState? {
        try? JSONDecoder().decode(SyncState.self, from: Data(bytes))
    }
}

extension PeerID {
    /// Whether Postbox stores this id as it is: positive and within 56 bits (Telegram's ids are far below; a server's
    /// other ids are not stored).
    var fitsStore: Bool { id > 0 && id <= 0x00FF_FFFF_FFFF_FFFF }
    /// The peer when the store can hold it, else nil (it would name another peer).
    var storable: PeerID? { fitsStore ? self : nil }
}
