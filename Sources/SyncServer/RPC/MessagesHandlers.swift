import MTProto
import TL

/// What `messages.sendMessage` stored, by the kind of peer it went to.
enum SendOutcome: Sendable {
    case privateMessage(SentPrivateMessage, sender: UserRecord, recipient: UserRecord)
    case channel(ChannelPost, sender: UserRecord)
    case chat(ChatDelivery, sender: UserRecord)
}

/// `messages.sendMessage` (private chats, basic groups and channels), `readHistory` and `setTyping`.
enum MessagesHandlers {
    static func register(in router: inout RPCRouter, server: ServerContext) {
        router.on(API.functions.messages.SendMessage.self) { call, context throws(RPCError) in
            let me = try context.user()
            let text = call.message
            try InputLimits.checkMessage(text)
            let entities = try InputLimits.checkedEntities(call.entities, text: text)
            try server.sendRate.admit(user: me, now: server.monotonicNow)
            let (input, randomID, date) = (call.peer, call.randomId, server.now)
            let outcome = try await server.storageWrite(locking: PeerResolution.boxes(of: input, me: me)) { tx -> SendOutcome in
                guard let sender = try tx.user(id: me) else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
                switch try PeerResolution.peer(input, me: me, in: tx) {
                case let .user(recipientID):
                    guard let recipient = try tx.user(id: recipientID) else { throw RPCError.badRequest("PEER_ID_INVALID") }
                    let sent = try PrivateMessaging.send(from: me, to: recipientID, text: text, entities: entities,
                                                         randomID: randomID, date: date, in: tx)
                    return .privateMessage(sent, sender: sender, recipient: recipient)
                case let .channel(channelID):
                    let post = try ChannelMessaging.post(from: me, to: channelID, text: text, entities: entities, randomID: randomID,
                                                         date: date, in: tx)
                    return .channel(post, sender: sender)
                case let .chat(chatID):
                    let delivery = try BasicGroups.send(from: me, to: chatID, text: text, entities: entities, randomID: randomID,
                                                        date: date, in: tx)
                    return .chat(delivery, sender: sender)
                }
            }
            switch outcome {
            case let .privateMessage(sent, sender, recipient):
                UpdatePush.privateMessage(sent, sender: sender, recipient: recipient, server: server, except: context.outlet)
                return .updateShortSentMessage(.init(out: true, id: sent.senderCopy.id, pts: sent.senderPts, ptsCount: 1,
                                                     date: sent.senderCopy.date,
                                                     entities: TLRendering.entities(sent.senderCopy.entities)))
            case let .chat(delivery, sender):
                UpdatePush.chatDelivery(delivery, sender: sender, server: server, except: context.outlet)
                guard let copy = delivery.senderCopy else { throw .internalError }
                return .updateShortSentMessage(.init(out: true, id: copy.message.id, pts: copy.pts, ptsCount: 1, date: copy.message.date,
                                                     entities: TLRendering.entities(copy.message.entities)))
            case let .channel(post, sender):
                if !post.isRepeat {
                    UpdatePush.channelEvent(.updateNewChannelMessage(.init(message: ChannelRendering.logged(post.message), pts: post.pts,
                                                                           ptsCount: 1)),
                                            channel: post.channel, members: post.members, sender: sender, date: date,
                                            server: server, except: context.outlet)
                }
                let message = ChannelRendering.message(post.message, viewer: me, broadcast: post.channel.broadcast)
                return .updates(.init(
                    updates: [.updateMessageID(.init(id: post.message.id, randomId: randomID)),
                              .updateNewChannelMessage(.init(message: message, pts: post.pts, ptsCount: 1))],
                    users: [TLRendering.user(sender, viewer: me)],
                    chats: [ChannelRendering.chat(post.channel, seenBy: me)],
                    date: post.message.date, seq: 0))
            }
        }

        router.on(API.functions.messages.ReadHistory.self) { call, context throws(RPCError) in
            let me = try context.user()
            let (input, maxID, date) = (call.peer, call.maxId, server.now)
            let outcome = try await server.storageWrite { tx in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                // Channels are read with channels.readHistory, as Telegram asks.
                if case .channel = peer { throw RPCError.badRequest("PEER_ID_INVALID") }
                return try DialogReads.readHistory(reader: me, peer: peer, maxID: maxID, date: date, in: tx)
            }
            if let update = outcome.readerUpdate { UpdatePush.single(update, to: me, date: date, server: server, except: context.outlet) }
            for (sender, update) in outcome.senders {
                UpdatePush.single(update, to: sender, date: date, server: server, except: nil)
            }
            return .affectedMessages(.init(pts: outcome.readerPts, ptsCount: outcome.readerPtsCount))
        }

        router.on(API.functions.messages.SetTyping.self) { call, context throws(RPCError) in
            let me = try context.user()
            let input = call.peer
            let (peer, members) = try await server.storageRead { tx -> (PeerRef, [Int64]) in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                switch peer {
                case let .channel(id):
                    _ = try ChannelAccess.member(of: id, user: me, in: tx)
                    return (peer, try tx.memberIDs(channel: id))
                case let .chat(id):
                    return (peer, try tx.chatMembers(chat: id).map(\.userID))   // membership checked by PeerResolution
                case .user:
                    return (peer, [])
                }
            }
            // Typing is unordered: no pts, pushed as updateShort and never logged.
            switch peer {
            case let .user(other) where other != me:
                UpdatePush.single(.updateUserTyping(.init(userId: me, action: call.action)), to: other, date: server.now,
                                  server: server, except: nil)
            case let .chat(id):
                let typing = API.Update.updateChatUserTyping(.init(chatId: id, fromId: .peerUser(.init(userId: me)), action: call.action))
                for member in members where member != me {
                    UpdatePush.single(typing, to: member, date: server.now, server: server, except: nil)
                }
            case let .channel(id):
                let typing = API.Update.updateChannelUserTyping(.init(channelId: id, fromId: .peerUser(.init(userId: me)),
                                                                      action: call.action))
                for member in members where member != me {
                    UpdatePush.single(typing, to: member, date: server.now, server: server, except: nil)
                }
            default:
                break
            }
            return true
        }
    }
}
