import Postbox
import TL

/// A message waiting to be sent, as the operation log holds it: the serialized `messages.sendMessage` (its
/// `random_id` fixed when it was queued, so a retry after a crash is recognised by the server as the same send) — or
/// `messages.forwardMessages` of one message, or `messages.sendMedia` of an uploaded file — beside the local message
/// the user sees meanwhile.
public struct OutboxEntry: Equatable, Sendable {
    /// The operation-log tag of sends.
    public static let sendTag: Int32 = 1
    /// Local (unsent) messages live in their own namespace, numbered by the log entry's index.
    public static let localMessages: Int32 = 1

    /// What the entry asks of the server.
    public enum Request: Equatable, Sendable {
        case message(API.functions.messages.SendMessage)
        /// A forward of one message (its one `random_id` fixed when it was queued).
        case forward(API.functions.messages.ForwardMessages)
        /// A photo or document, uploaded before it was queued (`Account.sendFile`).
        case media(API.functions.messages.SendMedia)

        /// The request's fixed `random_id`, by which its answer names the new message.
        var randomID: Int64? {
            switch self {
            case let .message(send): send.randomId
            case let .forward(forward): forward.randomId.first
            case let .media(media): media.randomId
            }
        }

        var serialized: [UInt8] {
            switch self {
            case let .message(send): send.serialized()
            case let .forward(forward): forward.serialized()
            case let .media(media): media.serialized()
            }
        }
    }

    /// The operation-log entry that holds the send.
    public let log: OperationLogEntry
    /// The request, with its fixed `random_id`.
    public let request: Request

    /// The local message shown until the server's copy replaces it.
    public var localMessageID: MessageID { Self.localMessageID(of: log) }

    /// The local message of a send's log entry.
    static func localMessageID(of entry: OperationLogEntry) -> MessageID {
        MessageID(peer: entry.peer, namespace: localMessages, id: entry.localIndex)
    }

    /// nil when the stored bytes are neither request (a damaged entry is failed, not retried forever).
    public init?(_ log: OperationLogEntry) {
        if let send = try? API.functions.messages.SendMessage.deserialize(log.contents) {
            request = .message(send)
        } else if let forward = try? API.functions.messages.ForwardMessages.deserialize(log.contents), forward.id.count == 1,
                  forward.randomId.count == 1 {
            request = .forward(forward)
        } else if let media = try? API.functions.messages.SendMedia.deserialize(log.contents) {
            request = .media(media)
        } else {
            return nil
        }
        self.log = log
    }

    /// The store's key of the peer a send goes to.
    public static func peer(of input: API.InputPeer, selfID: Int64) -> PeerID? {
        switch input {
        case let .inputPeerUser(value): StoreMapping.user(value.userId)
        case let .inputPeerChat(value): PeerID(namespace: StoreMapping.groupNamespace, id: value.chatId)
        case let .inputPeerChannel(value): StoreMapping.channel(value.channelId)
        case .inputPeerSelf: StoreMapping.user(selfID)
        default: nil
        }
    }
}

extension OutboxEntry {
    /// Where the server put a send, as its answer says (`updateShortSentMessage` joined with the request, or the new
    /// message an `updates` answer carries under the request's `random_id`): the stored message's key, its box (a
    /// channel, or nil for the common box) and the pts it brings that box to; nil when the answer names none.
    static func serverCopy(of result: API.Updates, request: Request, selfID: Int64) -> AwaitedCopy.Server? {
        let updates: [API.Update]
        switch result {
        case let .updateShortSentMessage(sent):
            guard case let .message(send) = request else { return nil }
            return UpdatesNormalizer(selfID: selfID).sentMessage(sent, request: send).flatMap(server(of:))
        case let .updates(value): updates = value.updates
        case let .updatesCombined(value): updates = value.updates
        default: return nil
        }
        let id = updates.lazy.compactMap { update -> Int32? in
            if case let .updateMessageID(value) = update, value.randomId == request.randomID { value.id } else { nil }
        }.first
        guard let id else { return nil }
        return updates.lazy.compactMap(server(of:)).first { $0.id.id == id }
    }

    private static func server(of update: API.Update) -> AwaitedCopy.Server? {
        switch update {
        case let .updateNewMessage(value): StoreMapping.message(value.message).map { .init(id: $0.id, channel: nil, pts: value.pts) }
        case let .updateNewChannelMessage(value):
            UpdateOrdering.channelID(of: value.message).flatMap { channel in
                StoreMapping.message(value.message).map { .init(id: $0.id, channel: channel, pts: value.pts) }
            }
        default: nil
        }
    }
}

/// A confirmed send whose server copy the sequencer holds back (a gap, a catch-up running after a reconnect): its
/// local copy stays, unsent, until the batch that stores the server copy — or that moves the copy's box past its pts
/// without it (deleted meanwhile) — removes it, so no view ever shows the message gone and back.
struct AwaitedCopy: Sendable {
    struct Server: Sendable {
        let id: MessageID
        let channel: Int64?
        let pts: Int32
    }

    let local: MessageID
    let server: Server

    /// Whether `mutation` settles it: it stores the server copy, or its state has passed the copy's pts.
    func isSettled(by mutation: AccountMutation, state: SyncState) -> Bool {
        if mutation.added[server.id] != nil { return true }
        let reached = server.channel.map { state.channels[$0] } ?? state.pts
        return reached.map { $0 >= server.pts } ?? true   // a channel no longer followed: nothing will bring it
    }
}

extension AccountMutation {
    /// A logged operation is done: its entry goes (and a send's local copy, unless `keepingLocal`: an `AwaitedCopy`) in
    /// the transaction that stores its result.
    mutating func complete(_ entry: OperationLogEntry, keepingLocal: Bool = false) {
        completedLogEntries.append(entry)
        if keepingLocal { keptLocalCopies.insert(OutboxEntry.localMessageID(of: entry)) }
    }

    /// Refused for good: a send's local copy stays, marked failed; the entry is not retried.
    mutating func fail(_ entry: OperationLogEntry) {
        failedLogEntries.append(entry)
    }

    func applyLogEntries(_ transaction: Transaction) throws {
        for entry in completedLogEntries + failedLogEntries {
            try transaction.removeOperation(peer: entry.peer, tag: entry.tag, localIndex: entry.localIndex)
        }
        // Only sends own a local message (numbered by their entry's index within the send tag); an awaited one stays.
        for entry in completedLogEntries where entry.tag == OutboxEntry.sendTag {
            let local = OutboxEntry.localMessageID(of: entry)
            if !keptLocalCopies.contains(local) { try transaction.removeMessages([local]) }
        }
        if !settledLocalCopies.isEmpty { try transaction.removeMessages(settledLocalCopies.sorted()) }
        for entry in rolledBackChanges.reversed() { try entry.before.restore(entry.change, in: transaction) }
        for entry in failedLogEntries where entry.tag == OutboxEntry.sendTag {
            try transaction.updateMessage(MessageID(peer: entry.peer, namespace: OutboxEntry.localMessages, id: entry.localIndex)) { message in
                message.flags.remove(.unsent)
                message.flags.insert(.failed)
            }
        }
    }
}
