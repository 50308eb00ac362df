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

extension AccountMutation {
    /// A logged operation is done: its entry goes (and a send's local copy) in the transaction that stores its result.
    mutating func complete(_ entry: OperationLogEntry) {
        completedLogEntries.append(entry)
    }

    /// Refused for good: a send's local copy stays, marked failed; the entry is not retried.
    mutating func fail(_ entry: OperationLogEntry) {
        failedLogEntries.append(entry)
    }

    func applyLogEntries(_ transaction: Transaction) throws {
        for entry in completedLogEntries + failedLogEntries {
            try transaction.removeOperation(peer: entry.peer, tag: entry.tag, localIndex: entry.localIndex)
        }
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
