import Postbox
import Synchronization
import TL

/// What the app hears from the account besides its store's views, as `AsyncSequence`s, each
/// emitted after the transaction that stored it committed.
public enum AccountEvent: Equatable, Sendable {
    /// An update the sequencer placed (stored first).
    case delivered(API.Update)
    /// `updates.differenceTooLong`: the common box jumped; history older than what is stored must be fetched again.
    case differenceTooLong
    /// `updates.channelDifferenceTooLong`: the channel's history was reset to a hole with its latest messages.
    case channelReset(Int64)
    /// The account is logged out: syncing stopped and the login was cleared (the store kept or wiped as configured).
    case loggedOut(LogoutReason)
    /// The server refused an account change for good (`USERNAME_OCCUPIED`, `MESSAGE_ID_INVALID`, …): the store was put
    /// back as it was before the change, in the transaction that dropped it from the log.
    case changeRefused(AccountChange, error: String)
    /// This instance became the one that syncs the directory (true: at open with no live master, or taking over from
    /// one that ended) or follows another (false, at open). A follower performs no sends and emits no other events:
    /// its views follow the syncing process's commits.
    case roleChanged(isMaster: Bool)
    /// Stored messages the server's deletes removed (the other side, another device, a channel's admin), as they
    /// were stored, each naming its chat; emitted once the batch that removed them is written. (`deletedMessages`
    /// gives the server's ids, stored or not; an app's own `Account.delete` removes its messages at once instead.)
    case messagesDeleted([Message])
    /// A queued send was taken by the server (TDLib's `updateMessageSendSucceeded`): its local copy `local` is the
    /// server's message `server` (nil when the answer did not name it). Emitted once the batch that stores the server
    /// copy in place of the local one is written, so the app finds `server` in the store; `OutgoingMessage` follows it.
    case sendSucceeded(local: MessageID, server: MessageID?)
    /// A queued send was refused for good (TDLib's `updateMessageSendFailed`): its local copy stays, marked failed;
    /// `error` is Telegram's name for the refusal (`PEER_ID_INVALID`, `CHAT_WRITE_FORBIDDEN`, …).
    case sendFailed(local: MessageID, error: String)
}

/// Why an account stopped being logged in.
public enum LogoutReason: Equatable, Sendable {
    /// The app called `Account.logOut()`.
    case requested
    /// The server saw the account's key used in two places at once (`AUTH_KEY_DUPLICATED`); every key was dropped.
    case authKeyDuplicated
    /// The server ended the login (`AUTH_KEY_UNREGISTERED`, `SESSION_REVOKED`, …): a logout or a session terminated
    /// elsewhere.
    case revoked(String)
}

/// Deleted messages as an update names them: by common-box id alone, or in one channel.
public enum DeletedMessages: Equatable, Sendable {
    case common(ids: [Int32])
    case channel(Int64, ids: [Int32])
}

/// Someone typing (or doing another action) in a chat.
public struct Typing: Equatable, Sendable {
    /// The chat being typed in.
    public let chat: PeerID
    /// The user typing.
    public let user: Int64
    /// What they are doing (typing, recording, …).
    public let action: API.SendMessageAction
}

/// A read mark moved: what this account read (inbox) or what the other side read of this account's messages (outbox).
public struct ReadMark: Equatable, Sendable {
    /// The chat whose read mark moved.
    public let chat: PeerID
    /// Messages up to this id are read.
    public let maxID: Int32
    /// True for the other side reading what the account sent; false for the account reading what it received.
    public let outgoing: Bool
}

extension AccountEvent {
    /// A new message from someone else, in its stored form: what a notification shows.
    public var incomingMessage: Message? {
        guard case let .delivered(update) = self else { return nil }
        let message: API.Message
        switch update {
        case let .updateNewMessage(value): message = value.message
        case let .updateNewChannelMessage(value): message = value.message
        default: return nil
        }
        guard let stored = StoreMapping.message(message), stored.flags.contains(.incoming) else { return nil }
        return stored
    }

    /// The deletion this event carries, if it is one.
    /// A new message as stored, the account's own from its other devices included (`incomingMessage` is only others').
    public var newMessage: Message? {
        guard case let .delivered(update) = self else { return nil }
        switch update {
        case let .updateNewMessage(value): return StoreMapping.message(value.message)
        case let .updateNewChannelMessage(value): return StoreMapping.message(value.message)
        default: return nil
        }
    }

    /// An edited message as it now reads (`updateEditMessage`, `updateEditChannelMessage`).
    public var editedMessage: Message? {
        guard case let .delivered(update) = self else { return nil }
        switch update {
        case let .updateEditMessage(value): return StoreMapping.message(value.message)
        case let .updateEditChannelMessage(value): return StoreMapping.message(value.message)
        default: return nil
        }
    }

    /// The stored messages a delete removed, as they were (each names its chat).
    public var deletedStoredMessages: [Message]? {
        if case let .messagesDeleted(messages) = self { messages } else { nil }
    }

    public var deletedMessages: DeletedMessages? {
        guard case let .delivered(update) = self else { return nil }
        switch update {
        case let .updateDeleteMessages(value): return .common(ids: value.messages)
        case let .updateDeleteChannelMessages(value): return .channel(value.channelId, ids: value.messages)
        default: return nil
        }
    }

    /// The typing this event carries, if it is one.
    public var typing: Typing? {
        guard case let .delivered(update) = self else { return nil }
        switch update {
        case let .updateUserTyping(value):
            return Typing(chat: StoreMapping.user(value.userId), user: value.userId, action: value.action)
        case let .updateChatUserTyping(value):
            guard case let .peerUser(from) = value.fromId else { return nil }
            return Typing(chat: PeerID(namespace: StoreMapping.groupNamespace, id: value.chatId), user: from.userId, action: value.action)
        case let .updateChannelUserTyping(value):
            guard case let .peerUser(from) = value.fromId else { return nil }
            return Typing(chat: StoreMapping.channel(value.channelId), user: from.userId, action: value.action)
        default:
            return nil
        }
    }

    /// The read mark this event carries, if it is one.
    public var readMark: ReadMark? {
        guard case let .delivered(update) = self else { return nil }
        switch update {
        case let .updateReadHistoryInbox(value): return ReadMark(chat: StoreMapping.peerID(value.peer), maxID: value.maxId, outgoing: false)
        case let .updateReadHistoryOutbox(value): return ReadMark(chat: StoreMapping.peerID(value.peer), maxID: value.maxId, outgoing: true)
        case let .updateReadChannelInbox(value): return ReadMark(chat: StoreMapping.channel(value.channelId), maxID: value.maxId, outgoing: false)
        case let .updateReadChannelOutbox(value): return ReadMark(chat: StoreMapping.channel(value.channelId), maxID: value.maxId, outgoing: true)
        default: return nil
        }
    }
}
