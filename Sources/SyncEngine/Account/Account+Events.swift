import Postbox

/// The account's events by kind, each a sequence of its own: every access subscribes anew to `Account.events`.
extension Account {
    /// New messages from others, as stored: what notifications show.
    public nonisolated var incomingMessages: AsyncCompactMapSequence<AsyncStream<AccountEvent>, Message> {
        events.compactMap(\.incomingMessage)
    }

    /// Messages deleted, after their transaction committed.
    public nonisolated var deletedMessages: AsyncCompactMapSequence<AsyncStream<AccountEvent>, DeletedMessages> {
        events.compactMap(\.deletedMessages)
    }

    /// Edited messages as they now read.
    public nonisolated var editedMessages: AsyncCompactMapSequence<AsyncStream<AccountEvent>, Message> {
        events.compactMap(\.editedMessage)
    }

    /// Stored messages the server's deletes removed, as they were, each naming its chat (`AccountEvent.messagesDeleted`).
    public nonisolated var deletions: AsyncCompactMapSequence<AsyncStream<AccountEvent>, [Message]> {
        events.compactMap(\.deletedStoredMessages)
    }

    /// Someone typing in a chat the account sees.
    public nonisolated var typing: AsyncCompactMapSequence<AsyncStream<AccountEvent>, Typing> { events.compactMap(\.typing) }

    /// Read marks that moved, incoming or outgoing.
    public nonisolated var readMarks: AsyncCompactMapSequence<AsyncStream<AccountEvent>, ReadMark> { events.compactMap(\.readMark) }

    /// Whether what the app sends leaves now (`ConnectionReadiness`): the current state, then every change. An app's
    /// "connecting…" or offline banner; a follower process (`isMaster` false) keeps no connection and stays `.connecting`.
    public nonisolated var connectionReadiness: AsyncStream<ConnectionReadiness> { network.readinessChanges }
}
