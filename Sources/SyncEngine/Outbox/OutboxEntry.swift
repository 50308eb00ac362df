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

    public let log: OperationLogEntry
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
    /// The server accepted the send: the local copy and the log entry go in the transaction that stores its copy.
    mutating func complete(_ entry: OperationLogEntry) {
        completedSends.append(entry)
    }

    /// The server refused the send for good: the local copy stays, marked failed, and the entry is not retried.
    mutating func fail(_ entry: OperationLogEntry) {
        failedSends.append(entry)
    }

    func applySends(_ transaction: Transaction) throws {
        for entry in completedSends {
            try transaction.removeMessages([MessageID(peer: entry.peer, namespace: OutboxEntry.localMessages, id: entry.localIndex)])
            try transaction.removeOperation(peer: entry.peer, tag: entry.tag, localIndex: entry.localIndex)
        }
        for entry in failedSends {
            let local = MessageID(peer: entry.peer, namespace: OutboxEntry.localMessages, id: entry.localIndex)
            try transaction.updateMessage(local) { message in
                message.flags.remove(.unsent)
                message.flags.insert(.failed)
            }
            try transaction.removeOperation(peer: entry.peer, tag: entry.tag, localIndex: entry.localIndex)
        }
    }
}
