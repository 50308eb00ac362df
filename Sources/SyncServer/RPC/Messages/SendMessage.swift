import MTProtoNIO
import MTProto
import TL

/// What `messages.sendMessage` stored, by the kind of peer it went to.
/// `links`: the sender as those pushed to see them (read only for what is pushed with users).
enum SendOutcome: Sendable {
    case privateMessage(SentPrivateMessage, sender: UserRecord, recipient: UserRecord, links: ViewerLinks)
    case channel(ChannelPost, sender: UserRecord, links: ViewerLinks)
    case chat(ChatDelivery, sender: UserRecord, links: ViewerLinks)
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
                switch peer {
                case let .user(recipientID):
                    guard let recipient = try tx.user(id: recipientID) else { throw RPCError.badRequest("PEER_ID_INVALID") }
                    let sent = try PrivateMessaging.send(from: me, to: recipientID, text: text, entities: entities, replyTo: replyTo,
                                                         randomID: randomID, date: date,
                                                         reachesRecipient: try Blocking.delivers(from: me, to: recipient, in: tx), in: tx)
                    let links = UpdatePush.needsUsers(sent.senderCopy)
                        ? try ViewerLinks.read(viewers: [me, recipientID], users: [me, recipientID], in: tx) : .none
                    return .privateMessage(sent, sender: sender, recipient: recipient, links: links)
                case let .channel(channelID):
                    let post = try ChannelMessaging.post(from: me, to: channelID, text: text, entities: entities, replyTo: replyTo,
                                                         randomID: randomID, date: date, in: tx)
                    return .channel(post, sender: sender, links: try ViewerLinks.forPush(viewers: post.members.ids, users: [me],
                                                                                        server: server, in: tx))
                case let .chat(chatID):
                    let delivery = try BasicGroups.send(from: me, to: chatID, text: text, entities: entities, replyTo: replyTo,
                                                        randomID: randomID, date: date, in: tx)
                    return .chat(delivery, sender: sender,
                                 links: try ViewerLinks.forChat(delivery, users: [sender], caller: me, server: server, in: tx))
                }
            }
        }

        /// After the commit: the other sessions' pushes, then the sender's answer.
        static func pushAndAnswer(_ outcome: SendOutcome, me: Int64, randomID: Int64, date: Int32, server: ServerContext,
                                  except outlet: SessionOutlet?) throws(RPCError) -> Function.Result {
            switch outcome {
            case let .privateMessage(sent, sender, recipient, links):
                UpdatePush.privateMessage(sent, sender: sender, recipient: recipient, links: links, server: server, except: outlet)
                return .updateShortSentMessage(.init(out: true, id: sent.senderCopy.id, pts: sent.senderPts, ptsCount: 1,
                                                     date: sent.senderCopy.date,
                                                     entities: TLRendering.entities(sent.senderCopy.entities)))
            case let .chat(delivery, sender, links):
                UpdatePush.chatDelivery(delivery, sender: sender, links: links, server: server, except: outlet)
                guard let copy = delivery.senderCopy else { throw .internalError }
                return .updateShortSentMessage(.init(out: true, id: copy.message.id, pts: copy.pts, ptsCount: 1, date: copy.message.date,
                                                     entities: TLRendering.entities(copy.message.entities)))
            case let .channel(post, sender, links):
                if !post.isRepeat {
                    UpdatePush.channelEvent(.updateNewChannelMessage(.init(message: ChannelRendering.logged(post.message), pts: post.pts,
                                                                           ptsCount: 1)),
                                            channel: post.channel, members: post.members, sender: sender, links: links, date: date,
                                            server: server, except: outlet)
                }
                let message = ChannelRendering.message(post.message, viewer: me, broadcast: post.channel.broadcast)
                return .updates(.init(
                    updates: [.updateMessageID(.init(id: post.message.id, randomId: randomID)),
                              .updateNewChannelMessage(.init(message: message, pts: post.pts, ptsCount: 1))],
                    users: [TLRendering.user(sender, viewer: me)],
                    chats: [ChannelRendering.chat(post.channel, seenBy: me, in: post.members)],
                    date: post.message.date, seq: 0))
            }
        }
    }
}
