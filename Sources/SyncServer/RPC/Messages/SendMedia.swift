import MTProto
import TL

extension MessagesRPC {
    /// `messages.sendMedia`: a photo or document (uploaded, or an existing one again) with a caption, to a user, a
    /// basic group or a channel. The file is made before the message's transaction (a photo's sizes off the caller's
    /// thread); the answer is `updates` with `updateMessageID` and the new message with its media, as Telegram answers.
    /// A retry of a send already stored (its `random_id`) gets the first answer without using the upload again.
    enum SendMedia: RPCMethod {
        typealias Function = API.functions.messages.SendMedia

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> API.Updates {
            let me = try context.user()
            try InputLimits.checkCaption(call.message)
            let entities = try InputLimits.checkedEntities(call.entities, text: call.message)
            try server.sendRate.admit(user: me, now: server.monotonicNow)
            let media = try await MediaSends.media(call.media, randomID: call.randomId, me: me, dc: context.dc, server: server)
            let message = OutgoingMessage(text: call.message, entities: entities, media: media)
            return try await MediaSends.send([(message, call.randomId)], to: call.peer, replyTo: call.replyTo, me: me, server: server,
                                             context: context)
        }
    }

    /// `messages.uploadMedia`: a photo or document made from an upload without a message, to be sent later by id
    /// (`inputMediaPhoto` / `inputMediaDocument`), as clients do before an album.
    enum UploadMedia: RPCMethod {
        typealias Function = API.functions.messages.UploadMedia

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> API.MessageMedia {
            let me = try context.user()
            let media = try await MediaFiles.outgoing(call.media, owner: me, dc: context.dc, server: server)
            guard let rendered = TLRendering.media(media.bytes) else { throw .internalError }
            return rendered
        }
    }

    /// `messages.sendMultiMedia`: an album of 1–10 photos and documents, each with its caption and `random_id`, sent
    /// as messages sharing one `grouped_id` in one transaction.
    enum SendMultiMedia: RPCMethod {
        typealias Function = API.functions.messages.SendMultiMedia
        static let maximumItems = 10

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> API.Updates {
            let me = try context.user()
            guard !call.multiMedia.isEmpty else { throw .badRequest("MEDIA_EMPTY") }
            guard call.multiMedia.count <= maximumItems else { throw .badRequest("MULTI_MEDIA_TOO_LONG") }
            let items = call.multiMedia.map { item -> API.InputSingleMedia.InputSingleMedia in
                switch item { case let .inputSingleMedia(value): value }
            }
            guard Set(items.map(\.randomId)).count == items.count else { throw .badRequest("RANDOM_ID_INVALID") }
            var entities: [[UInt8]] = []
            for item in items {
                try InputLimits.checkCaption(item.message)
                entities.append(try InputLimits.checkedEntities(item.entities, text: item.message))
            }
            for _ in items { try server.sendRate.admit(user: me, now: server.monotonicNow) }
            let groupedID = server.random { $0.int64(in: 1...Int64.max) }
            var messages: [(message: OutgoingMessage, randomID: Int64)] = []
            for (item, entities) in zip(items, entities) {
                let media = try await MediaSends.media(item.media, randomID: item.randomId, me: me, dc: context.dc, server: server)
                messages.append((OutgoingMessage(text: item.message, entities: entities, media: media, groupedID: groupedID), item.randomId))
            }
            return try await MediaSends.send(messages, to: call.peer, replyTo: call.replyTo, me: me, server: server, context: context)
        }
    }
}

/// What `sendMedia` and `sendMultiMedia` share: the media made before the transaction, the messages delivered in it.
enum MediaSends {
    /// The media of a send, or nil for a retry whose `random_id` is stored (its upload was used by the first send).
    static func media(_ input: API.InputMedia, randomID: Int64, me: Int64, dc: Int32,
                      server: ServerContext) async throws(RPCError) -> OutgoingMedia? {
        guard try await server.storageRead({ try $0.sent(user: me, randomID: randomID) }) == nil else { return nil }
        return try await MediaFiles.outgoing(input, owner: me, dc: dc, server: server)
    }

    static func send(_ messages: [(message: OutgoingMessage, randomID: Int64)], to input: API.InputPeer, replyTo: API.InputReplyTo?,
                     me: Int64, server: ServerContext, context: RPCContext) async throws(RPCError) -> API.Updates {
        let date = server.now
        let outcome = try await server.storageWrite(locking: PeerResolution.boxes(of: input, me: me)) { tx in
            guard let sender = try tx.user(id: me) else { throw RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") }
            let peer = try PeerResolution.peer(input, me: me, in: tx)
            let target = try Replies.target(of: replyTo, in: peer, me: me, tx: tx)
            var replying = messages
            if let first = replying.indices.first { replying[first].message.replyTo = target }
            return try BatchSend.deliver(replying, from: sender, to: peer, date: date, server: server, in: tx)
        }
        BatchSend.push(outcome, date: date, server: server, except: context.outlet)
        return outcome.answer
    }
}
