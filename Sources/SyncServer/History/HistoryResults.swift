import MTProto
import TL

/// The `messages.Messages` results that history, message lookups and differences share: a page cut to the answer's
/// byte budget, with the users and chats it names.
enum HistoryResults {
    /// The ids `inputs` name in one box: by id; the message a given one replies to (`inputMessageReplyTo`, how
    /// clients load the message a reply quotes); the chat's newest pinned message (`inputMessagePinned`, where the
    /// call names a chat). A callback query's message names nothing (this server hosts no bots yet), nor does a
    /// reference to a message that does not exist or replies to nothing.
    static func messageIDs(_ inputs: [API.InputMessage], replyTarget: (Int32) throws -> Int32?,
                           pinned: () throws -> Int32?) throws -> [Int32] {
        try inputs.compactMap { input in
            switch input {
            case let .inputMessageID(value): value.id
            case let .inputMessageReplyTo(value): try replyTarget(value.id)
            case .inputMessagePinned: try pinned()
            case .inputMessageCallbackQuery: nil
            }
        }
    }

    /// Messages of the caller's box with every peer they name (`NamedPeers`: chats, senders, forward origins, the
    /// members a service message names).
    static func messagesResult(_ page: [StoredMessage], total: Int, inexact: Bool = false, me: Int64,
                               in tx: any StorageReader) throws -> API.messages.Messages {
        let messages = HistoryPaging.fitting(page) { $0.text.utf8.count + $0.entities.count }
        let total = messages.count < page.count ? max(total, page.count + 1) : total   // a cut page is a slice
        let rendered = messages.map(TLRendering.message)
        let named = messages.flatMap(NamedPeers.of)
        let users = try ViewerLinks.rendered(try self.users(named: named, me: me, in: tx), viewer: me, in: tx)
        let chats = try PeerRendering.chats(among: named, viewer: me, in: tx)
        if messages.count < total {
            return .messagesSlice(.init(inexact: inexact, count: Int32(clamping: total), messages: rendered, topics: [], chats: chats, users: users))
        }
        return .messages(.init(messages: rendered, topics: [], chats: chats, users: users))
    }

    /// The caller and every user among `peers`, once each, for the `users` vector of a result.
    static func users(named peers: [PeerRef], me: Int64, in tx: any StorageReader) throws -> [UserRecord] {
        try PeerRendering.users(among: [.user(me)] + peers, in: tx)
    }

    /// `messages.channelMessages` with the channel's pts, the channel, and every peer the messages name.
    static func channelMessages(_ page: [ChannelMessage], channel: ChannelRecord, member: ChannelMember, total: Int, inexact: Bool = false,
                                me: Int64, in tx: any StorageReader) throws -> API.messages.Messages {
        let messages = HistoryPaging.fitting(page) { $0.text.utf8.count + $0.entities.count }
        let (users, chats) = try peers(of: messages, channel: channel, member: member, me: me, in: tx)
        return .channelMessages(.init(
            inexact: inexact, pts: channel.pts, count: Int32(clamping: total),
            messages: messages.map { ChannelRendering.message($0, viewer: me, broadcast: channel.broadcast) }, topics: [],
            chats: chats, users: users))
    }

    /// The `users` and `chats` of an answer carrying a channel's messages: the caller and every user they name (senders,
    /// forward origins, service messages' members), the channel first and the other chats they name.
    static func peers(of messages: [ChannelMessage], channel: ChannelRecord, member: ChannelMember, me: Int64,
                      in tx: any StorageReader) throws -> (users: [API.User], chats: [API.Chat]) {
        let named = messages.flatMap(NamedPeers.of)
        return (try ViewerLinks.rendered(try users(named: named, me: me, in: tx), viewer: me, in: tx),
                [ChannelRendering.chat(channel, member: member)]
                    + (try PeerRendering.chats(among: named.filter { $0 != .channel(channel.id) }, viewer: me, in: tx)))
    }
}
