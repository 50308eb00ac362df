import MTProtoNIO
import MTProto
import TL

extension MessagesRPC {
    /// `messages.forwardMessages` (at most 100 ids, one `random_id` each: `RANDOM_ID_INVALID` otherwise) from a private
    /// chat, basic group or channel the caller can read to one they can write to, in one transaction (`Forwarding`).
    /// `MESSAGE_ID_INVALID` when none of the ids names a message that can be forwarded. Each forwarded message counts
    /// against the send rate. The caller gets every copy with its pts in one `updates`; the other sessions of everyone
    /// the copies reach get theirs pushed.
    enum ForwardMessages: RPCMethod {
        typealias Function = API.functions.messages.ForwardMessages

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

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.id.count)
            guard !call.id.isEmpty else { throw .badRequest("MESSAGE_ID_INVALID") }
            guard call.randomId.count == call.id.count, Set(call.randomId).count == call.randomId.count else {
                throw .badRequest("RANDOM_ID_INVALID")
            }
            for _ in call.id { try server.sendRate.admit(user: me, now: server.monotonicNow) }
            let date = server.now
            let outcome = try await server.storageWrite(locking: PeerResolution.boxes(of: call.toPeer, me: me)) { tx in
                try store(call, me: me, date: date, server: server, in: tx)
            }
            push(outcome, me: me, date: date, server: server, except: context.outlet)
            return outcome.answer
        }

        static func store(_ call: Function, me: Int64, date: Int32, server: ServerContext, in tx: any StorageWriter) throws -> Outcome {
            guard let sender = try tx.user(id: me) else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
            let from = try PeerResolution.peer(call.fromPeer, me: me, in: tx)
            let sources = try Forwarding.sources(call.id, from: from, me: me, dropAuthor: call.dropAuthor, in: tx)
            guard !sources.isEmpty else { throw RPCError.badRequest("MESSAGE_ID_INVALID") }
            let randomIDs = Array(call.randomId.prefix(sources.count))
            let (originUsers, originChats) = try Forwarding.origins(of: sources, viewer: me, in: tx)
            let to = try PeerResolution.peer(call.toPeer, me: me, in: tx)
            let delivered = try zip(sources, randomIDs).map { source, randomID in
                try PeerDelivery.deliver(OutgoingMessage(text: source.text, entities: source.entities, forward: source.header),
                                         from: me, to: to, randomID: randomID, date: date, in: tx)
            }
            guard let last = delivered.last else { throw RPCError.badRequest("MESSAGE_ID_INVALID") }
            let answered = try zip(delivered, randomIDs).flatMap { try $0.senderUpdates(randomID: $1, viewer: me) }
            var perOwner: [Int64: [API.Update]] = [:]
            for (owner, update) in delivered.flatMap(\.ownerUpdates) { perOwner[owner, default: []].append(update) }
            let destination = try last.destination(viewer: me, in: tx)
            return try outcome(answered, pushes: perOwner.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                               users: [sender] + destination.users + originUsers, chats: destination.chats + originChats,
                               posts: delivered.compactMap(\.post), sender: sender, me: me, date: date, server: server, in: tx)
        }

        private static func outcome(_ answered: [API.Update], pushes: [(owner: Int64, updates: [API.Update])], users: [UserRecord],
                                    chats: [API.Chat], posts: [ChannelPost], sender: UserRecord, me: Int64, date: Int32,
                                    server: ServerContext, in tx: any StorageReader) throws -> Outcome {
            var seen = Set<Int64>()
            let users = users.filter { seen.insert($0.id).inserted }
            let pushes = pushes.filter { !$0.updates.isEmpty }
            var links = try ViewerLinks.forPush(viewers: pushes.map(\.owner), always: [me], users: users.map(\.id), server: server, in: tx)
            if let members = posts.first?.members {      // a channel's members are told of the sender and the origins
                links.add(try ViewerLinks.forPush(viewers: members.filter { $0 != me }, users: users.map(\.id), server: server, in: tx))
            }
            let answer = API.Updates.updates(.init(updates: answered, users: links.rendered(users, viewer: me), chats: chats,
                                                   date: date, seq: 0))
            return Outcome(answer: answer, pushes: pushes, users: users, chats: chats, posts: posts, sender: sender, links: links)
        }

        /// After the commit: each box owner's copies to their sessions (not the caller's), each channel post to the
        /// channel's members.
        static func push(_ outcome: Outcome, me: Int64, date: Int32, server: ServerContext, except caller: SessionOutlet?) {
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
}
