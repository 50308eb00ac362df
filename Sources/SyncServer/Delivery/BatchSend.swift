import MTProtoNIO
import MTProto
import TL

/// Several new messages to one peer in one transaction — forwards, an album, one message with media — answered in
/// one `updates` (each message's `updateMessageID` and new-message update, the users and chats they name) and pushed
/// to the other sessions of every box owner they reach, or as channel events to a channel's members.
enum BatchSend {
    /// What the transaction stored, rendered per owner.
    struct Outcome: Sendable {
        let answer: API.Updates
        /// Per owner of a box the copies reached: their new-message updates (private chats and groups).
        let pushes: [(owner: Int64, updates: [API.Update])]
        let users: [UserRecord]
        let chats: [API.Chat]
        /// Channel posts, pushed as channel events.
        let posts: [ChannelPost]
        let sender: UserRecord
        /// `users` as each owner pushed to (and the caller) sees them.
        let links: ViewerLinks
    }

    /// Delivers `messages` in order, inside the caller's transaction. `users` and `chats`: what the messages name
    /// besides the sender and the destination (a forward's origins).
    static func deliver(_ messages: [(message: OutgoingMessage, randomID: Int64)], from sender: UserRecord, to peer: PeerRef,
                        naming users: [UserRecord] = [], chats: [API.Chat] = [], date: Int32, server: ServerContext,
                        in tx: any StorageWriter) throws -> Outcome {
        let me = sender.id
        let delivered = try messages.map { message, randomID in
            try PeerDelivery.deliver(message, from: me, to: peer, randomID: randomID, date: date, in: tx)
        }
        guard let last = delivered.last else { throw RPCError.badRequest("MESSAGE_ID_INVALID") }
        let answered = try zip(delivered, messages).flatMap { try $0.senderUpdates(randomID: $1.randomID, viewer: me) }
        var perOwner: [Int64: [API.Update]] = [:]
        for (owner, update) in delivered.flatMap(\.ownerUpdates) { perOwner[owner, default: []].append(update) }
        let destination = try last.destination(viewer: me, in: tx)
        var seen = Set<Int64>()
        let named = ([sender] + destination.users + users).filter { seen.insert($0.id).inserted }
        let pushes = perOwner.sorted { $0.key < $1.key }.map { (owner: $0.key, updates: $0.value) }.filter { !$0.updates.isEmpty }
        let posts = delivered.compactMap(\.post)
        var links = try ViewerLinks.forPush(viewers: pushes.map(\.owner), always: [me], users: named.map(\.id), server: server, in: tx)
        if let members = posts.first?.members {      // a channel's members are told of the sender and the origins
            links.add(try ViewerLinks.forPush(viewers: members.filter { $0 != me }, users: named.map(\.id), server: server, in: tx))
        }
        let allChats = destination.chats + chats
        let answer = API.Updates.updates(.init(updates: answered, users: links.rendered(named, viewer: me), chats: allChats,
                                               date: date, seq: 0))
        return Outcome(answer: answer, pushes: pushes, users: named, chats: allChats, posts: posts, sender: sender, links: links)
    }

    /// After the commit: each box owner's copies to their sessions (not the caller's), each channel post to the
    /// channel's members.
    static func push(_ outcome: Outcome, date: Int32, server: ServerContext, except caller: SessionOutlet?) {
        for (owner, updates) in outcome.pushes {
            UpdatePush.withUsers(updates, users: outcome.users, links: outcome.links, chats: outcome.chats, to: owner, date: date,
                                 server: server, except: caller)
        }
        for post in outcome.posts {
            UpdatePush.channelEvent(.updateNewChannelMessage(.init(message: ChannelRendering.logged(post.message), pts: post.pts,
                                                                   ptsCount: 1)),
                                    channel: post.channel, members: post.members, sender: outcome.sender, naming: outcome.users,
                                    otherChats: outcome.chats.filter { PeerRendering.ref($0) != .channel(post.channel.id) }
                                        .map(ChannelRendering.minimal),
                                    links: outcome.links, date: date, server: server, except: caller)
        }
    }
}
