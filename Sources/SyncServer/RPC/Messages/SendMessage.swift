import MTProtoNIO
import MTProto
import TL

/// What `messages.sendMessage` stored (`Delivered`, by the kind of peer it went to), with the sender and `links`: the
/// sender as those pushed to see them (read only for what is pushed with users).
struct SendOutcome: Sendable {
    let delivered: Delivered
    let sender: UserRecord
    let links: ViewerLinks
}

extension MessagesRPC {
    /// `messages.sendMessage` to a user, a basic group or a channel: validate (text, entities, send rate), store in one
    /// transaction (the message in every box it reaches, with their pts), push to the other sessions, answer the sender
    /// (`updateShortSentMessage`, or `updates` for a channel post).
    enum SendMessage: RPCMethod {
        typealias Function = API.functions.messages.SendMessage

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkMessage(call.message)
            let entities = try InputLimits.checkedEntities(call.entities, text: call.message)
            try server.sendRate.admit(user: me, now: server.monotonicNow)
            let date = server.now
            let outcome = try await store(call, entities: entities, me: me, date: date, server: server)
            return try pushAndAnswer(outcome, me: me, randomID: call.randomId, date: date, server: server, except: context.outlet)
        }

        /// The one transaction: locks the boxes the message reaches, stores every copy with its pts.
        static func store(_ call: Function, entities: [UInt8], me: Int64, date: Int32,
                          server: ServerContext) async throws(RPCError) -> SendOutcome {
            let (input, text, randomID) = (call.peer, call.message, call.randomId)
            return try await server.storageWrite(locking: PeerResolution.boxes(of: input, me: me)) { tx -> SendOutcome in
                guard let sender = try tx.user(id: me) else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                let replyTo = try Replies.target(of: call.replyTo, in: peer, me: me, tx: tx)
                let delivered = try PeerDelivery.deliver(OutgoingMessage(text: text, entities: entities, replyTo: replyTo), from: me,
                                                         to: peer, randomID: randomID, date: date, in: tx)
                let links: ViewerLinks
                switch delivered {
                case let .privateMessage(sent, recipient):
                    links = UpdatePush.needsUsers(sent.senderCopy)
                        ? try ViewerLinks.read(viewers: [me, recipient.id], users: [me, recipient.id], in: tx) : .none
                case let .channel(post):
                    links = try ViewerLinks.forPush(viewers: post.members.ids, users: [me], server: server, in: tx)
                case let .chat(delivery):
                    links = try ViewerLinks.forChat(delivery, users: [sender], caller: me, server: server, in: tx)
                }
                return SendOutcome(delivered: delivered, sender: sender, links: links)
            }
        }

        /// After the commit: the other sessions' pushes, then the sender's answer.
        static func pushAndAnswer(_ outcome: SendOutcome, me: Int64, randomID: Int64, date: Int32, server: ServerContext,
                                  except outlet: SessionOutlet?) throws(RPCError) -> Function.Result {
            let (sender, links) = (outcome.sender, outcome.links)
            switch outcome.delivered {
            case let .privateMessage(sent, recipient):
                UpdatePush.privateMessage(sent, sender: sender, recipient: recipient, links: links, server: server, except: outlet)
                return .updateShortSentMessage(.init(out: true, id: sent.senderCopy.id, pts: sent.senderPts, ptsCount: 1,
                                                     date: sent.senderCopy.date,
                                                     entities: TLRendering.entities(sent.senderCopy.entities)))
            case let .chat(delivery):
                UpdatePush.chatDelivery(delivery, sender: sender, links: links, server: server, except: outlet)
                guard let copy = delivery.senderCopy else { throw .internalError }
                return .updateShortSentMessage(.init(out: true, id: copy.message.id, pts: copy.pts, ptsCount: 1, date: copy.message.date,
                                                     entities: TLRendering.entities(copy.message.entities)))
            case let .channel(post):
                if !post.isRepeat {
                    UpdatePush.channelEvent(.updateNewChannelMessage(.init(message: ChannelRendering.logged(post.message), pts: post.pts,
                                                                           ptsCount: 1)),
                                            channel: post.channel, members: post.members, sender: sender, links: links, date: date,
                                            server: server, except: outlet)
                }
                return .updates(.init(
                    updates: try outcome.delivered.senderUpdates(randomID: randomID, viewer: me),
                    users: [TLRendering.user(sender, viewer: me)],
                    chats: [ChannelRendering.chat(post.channel, seenBy: me, in: post.members)],
                    date: post.message.date, seq: 0))
            }
        }
    }
}
