import MTProto
import TL

/// `messages.*` for private dialogs: send, history, dialogs, read, typing. Basic groups and channels answer
/// CHANNEL_INVALID / PEER_ID_INVALID until they are implemented.
enum MessagesHandlers {
    static func register(in router: inout RPCRouter, server: ServerContext) {
        router.on(API.functions.messages.SendMessage.self) { call, context throws(RPCError) in
            let me = try context.user()
            let text = call.message
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw .badRequest("MESSAGE_EMPTY") }
            guard text.count <= SyncServerConfiguration.messageLengthMax else { throw .badRequest("MESSAGE_TOO_LONG") }
            let entities = call.entities.map { $0.isEmpty ? [] : $0.serialized() } ?? []
            let (input, randomID, date) = (call.peer, call.randomId, server.now)
            let (sent, sender, recipient) = try await server.storageWrite { tx in
                guard case let .user(recipientID) = try PeerResolution.peer(input, me: me, in: tx),
                      let recipient = try tx.user(id: recipientID), let sender = try tx.user(id: me)
                else { throw RPCError.badRequest("PEER_ID_INVALID") }
                let sent = try PrivateMessaging.send(from: me, to: recipientID, text: text, entities: entities,
                                                     randomID: randomID, date: date, in: tx)
                return (sent, sender, recipient)
            }
            UpdatePush.privateMessage(sent, sender: sender, recipient: recipient, server: server, except: context.outlet)
            return .updateShortSentMessage(.init(out: true, id: sent.senderCopy.id, pts: sent.senderPts, ptsCount: 1,
                                                 date: sent.senderCopy.date, entities: TLRendering.entities(sent.senderCopy.entities)))
        }

        router.on(API.functions.messages.GetHistory.self) { call, context throws(RPCError) in
            let me = try context.user()
            let input = call.peer
            let paging = HistoryPaging(offsetID: call.offsetId, offsetDate: call.offsetDate, addOffset: call.addOffset,
                                       limit: call.limit, maxID: call.maxId, minID: call.minId)
            let (messages, total, users) = try await server.storageRead { tx in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                let messages = try paging.page(owner: me, peer: peer, in: tx)
                return (messages, try tx.messageCount(owner: me, peer: peer), try Self.users(for: [peer], me: me, in: tx))
            }
            return Self.messagesResult(messages, total: total, users: users, me: me)
        }

        router.on(API.functions.messages.GetMessages.self) { call, context throws(RPCError) in
            let me = try context.user()
            let ids = call.id.compactMap { input -> Int32? in
                if case let .inputMessageID(value) = input { return value.id }
                return nil
            }
            let (messages, users) = try await server.storageRead { tx in
                let messages = try ids.compactMap { try tx.message(owner: me, id: $0) }
                return (messages, try Self.users(for: messages.map(\.peer), me: me, in: tx))
            }
            return .messages(.init(messages: messages.map(TLRendering.message), topics: [], chats: [],
                                   users: users.map { TLRendering.user($0, viewer: me) }))
        }

        router.on(API.functions.messages.GetDialogs.self) { call, context throws(RPCError) in
            let me = try context.user()
            let limit = Int(max(1, min(call.limit, 100)))
            let before: (date: Int32, topMessage: Int32)? = call.offsetDate > 0 ? (call.offsetDate, call.offsetId > 0 ? call.offsetId : 0) : nil
            let (dialogs, tops, users, total) = try await server.storageRead { tx in
                let dialogs = try tx.dialogs(owner: me, before: before, limit: limit)
                let tops = try dialogs.compactMap { try tx.message(owner: me, id: $0.topMessage) }
                return (dialogs, tops, try Self.users(for: dialogs.map(\.peer), me: me, in: tx), try tx.dialogCount(owner: me))
            }
            let rendered = dialogs.map { dialog in
                API.Dialog.dialog(.init(peer: TLRendering.peer(dialog.peer), topMessage: dialog.topMessage,
                                        readInboxMaxId: dialog.readInboxMaxID, readOutboxMaxId: dialog.readOutboxMaxID,
                                        unreadCount: dialog.unreadCount, unreadMentionsCount: 0, unreadReactionsCount: 0,
                                        unreadPollVotesCount: 0, notifySettings: TLRendering.notifySettings()))
            }
            let messages = tops.map(TLRendering.message)
            let renderedUsers = users.map { TLRendering.user($0, viewer: me) }
            if dialogs.count < total, before != nil || dialogs.count == limit {
                return .dialogsSlice(.init(count: Int32(total), dialogs: rendered, messages: messages, chats: [], users: renderedUsers))
            }
            return .dialogs(.init(dialogs: rendered, messages: messages, chats: [], users: renderedUsers))
        }

        router.on(API.functions.messages.ReadHistory.self) { call, context throws(RPCError) in
            let me = try context.user()
            let (input, maxID, date) = (call.peer, call.maxId, server.now)
            let outcome = try await server.storageWrite { tx in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                return try PrivateMessaging.readHistory(reader: me, peer: peer, maxID: maxID, date: date, in: tx)
            }
            if let update = outcome.readerUpdate { UpdatePush.single(update, to: me, date: date, server: server, except: context.outlet) }
            if let (other, update) = outcome.other {
                UpdatePush.single(update, to: other, date: date, server: server, except: nil)
            }
            return .affectedMessages(.init(pts: outcome.readerPts, ptsCount: outcome.readerPtsCount))
        }

        router.on(API.functions.messages.SetTyping.self) { call, context throws(RPCError) in
            let me = try context.user()
            let input = call.peer
            let peer = try await server.storageRead { tx in try PeerResolution.peer(input, me: me, in: tx) }
            // Typing is unordered: no pts, pushed as updateShort and never logged.
            if case let .user(other) = peer, other != me {
                UpdatePush.single(.updateUserTyping(.init(userId: me, action: call.action)), to: other, date: server.now,
                                  server: server, except: nil)
            }
            return true
        }
    }

    /// The caller and every user among `peers`, for the `users` vector of a result.
    static func users(for peers: [PeerRef], me: Int64, in tx: any StorageReader) throws -> [UserRecord] {
        var ids: [Int64] = [me]
        for case let .user(id) in peers where !ids.contains(id) { ids.append(id) }
        return try ids.compactMap { try tx.user(id: $0) }
    }

    static func messagesResult(_ messages: [StoredMessage], total: Int, users: [UserRecord], me: Int64) -> API.messages.Messages {
        let rendered = messages.map(TLRendering.message)
        let renderedUsers = users.map { TLRendering.user($0, viewer: me) }
        if messages.count < total {
            return .messagesSlice(.init(count: Int32(total), messages: rendered, topics: [], chats: [], users: renderedUsers))
        }
        return .messages(.init(messages: rendered, topics: [], chats: [], users: renderedUsers))
    }
}
