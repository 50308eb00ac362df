import Postbox
import TL

/// A message waiting to be sent, as the operation log holds it: the serialized `messages.sendMessage` (its
/// `random_id` fixed when it was queued, so a retry after a crash is recognised by the server as the same send)
/// beside the local message the user sees meanwhile.
public struct OutboxEntry: Equatable, Sendable {
    /// The operation-log tag of sends.
    public static let sendTag: Int32 = 1
    /// Local (unsent) messages live in their own namespace, numbered by the log entry's index.
    public static let localMessages: Int32 = 1

    /// The operation-log entry that holds the send.
    public let log: OperationLogEntry
    /// The request, with its fixed `random_id`.
    public let request: API.functions.messages.SendMessage

    /// The local message shown until the server's copy replaces it.
    public var localMessageID: MessageID {
        MessageID(peer: log.peer, namespace: Self.localMessages, id: log.localIndex)
    }

    /// nil when the stored bytes are not a `sendMessage` (a damaged entry is failed, not retried forever).
    public init?(_ log: OperationLogEntry) {
        guard let request = try? API.functions.messages.SendMessage.deserialize(log.contents) else { return nil }
        self.log = log
        self.request = request
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
    /// The server's copy of a send as its answer describes it (`updateShortSentMessage` joined with the request, or
    /// the new message an `updates` answer carries under the request's `random_id`); nil when the answer names none.
    static func confirmedCopy(of result: API.Updates, request: API.functions.messages.SendMessage, selfID: Int64) -> Message? {
        let updates: [API.Update]
        switch result {
        case let .updateShortSentMessage(sent):
            switch UpdatesNormalizer(selfID: selfID).sentMessage(sent, request: request) {
            case let .updateNewMessage(value)?: return StoreMapping.message(value.message)
            case let .updateNewChannelMessage(value)?: return StoreMapping.message(value.message)
            default: return nil
            }
        case let .updates(value): updates = value.updates
        case let .updatesCombined(value): updates = value.updates
        default: return nil
        }
        let id = updates.lazy.compactMap { update -> Int32? in
            if case let .updateMessageID(value) = update, value.randomId == request.randomId { value.id } else { nil }
        }.first
        guard let id else { return nil }
        for update in updates {
            let message: API.Message
            switch update {
            case let .updateNewMessage(value): message = value.message
            case let .updateNewChannelMessage(value): message = value.message
            default: continue
            }
            if let stored = StoreMapping.message(message), stored.id.id == id { return stored }
        }
        return nil
    }
}

extension AccountMutation {
    /// A logged operation is done: its entry goes (and a send's local copy) in the transaction that stores its result.
    /// `confirmed`: a send's copy as the server's answer gave it. When the sequencer holds that answer back (a gap
    /// after a reconnect) the copy is stored here, in place of the local one, so no view ever shows the message gone
    /// between the two commits; the held update replaces it when it applies.
    mutating func complete(_ entry: OperationLogEntry, confirmed: Message? = nil) {
        completedLogEntries.append(entry)
        if let confirmed { confirmedCopies.append(confirmed) }
    }

    /// Refused for good: a send's local copy stays, marked failed; the entry is not retried.
    mutating func fail(_ entry: OperationLogEntry) {
        failedLogEntries.append(entry)
    }

    func applyLogEntries(_ transaction: Transaction) throws {
        for entry in completedLogEntries + failedLogEntries {
            try transaction.removeOperation(peer: entry.peer, tag: entry.tag, localIndex: entry.localIndex)
        }
        // A confirmed copy the batch did not store (its update is held for a gap) replaces the local one now.
        for copy in confirmedCopies where try transaction.message(copy.id) == nil { try transaction.addMessages([copy]) }
        // Only sends own a local message (numbered by their entry's index within the send tag).
        for entry in completedLogEntries where entry.tag == OutboxEntry.sendTag {
            try transaction.removeMessages([MessageID(peer: entry.peer, namespace: OutboxEntry.localMessages, id: entry.localIndex)])
        }
        for entry in failedLogEntries where entry.tag == OutboxEntry.sendTag {
            try transaction.updateMessage(MessageID(peer: entry.peer, namespace: OutboxEntry.localMessages, id: entry.localIndex)) { message in
                message.flags.remove(.unsent)
                message.flags.insert(.failed)
            }
        }
    }
}
