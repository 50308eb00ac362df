import Postbox
import TL

/// What each kind of update changes in the store: one small handler per constructor, in a table (Telegram-iOS's
/// one 1,246-line function over every update is the counter-example). Updates with no entry (typing, statuses, …)
/// change nothing stored; they still reach the app as events.
enum UpdateHandlers {
    typealias Handler = @Sendable (API.Update, inout AccountMutation) -> Void

    static let table: [UInt32: Handler] = [
        API.Update.UpdateNewMessage.constructorID: { update, mutation in
            guard case let .updateNewMessage(value) = update else { return }
            addMessage(value.message, &mutation)
        },
        API.Update.UpdateNewChannelMessage.constructorID: { update, mutation in
            guard case let .updateNewChannelMessage(value) = update else { return }
            addMessage(value.message, &mutation)
        },
        API.Update.UpdateEditMessage.constructorID: { update, mutation in
            guard case let .updateEditMessage(value) = update, let message = StoreMapping.message(value.message) else { return }
            mutation.edit(message)
        },
        API.Update.UpdateEditChannelMessage.constructorID: { update, mutation in
            guard case let .updateEditChannelMessage(value) = update, let message = StoreMapping.message(value.message) else { return }
            mutation.edit(message)
        },
        API.Update.UpdateDeleteMessages.constructorID: { update, mutation in
            guard case let .updateDeleteMessages(value) = update else { return }
            mutation.delete(commonBoxIDs: value.messages)
        },
        API.Update.UpdateDeleteChannelMessages.constructorID: { update, mutation in
            guard case let .updateDeleteChannelMessages(value) = update else { return }
            let peer = StoreMapping.channel(value.channelId)
            mutation.delete(value.messages.map { MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: $0) })
        },
        API.Update.UpdateReadHistoryInbox.constructorID: { update, mutation in
            guard case let .updateReadHistoryInbox(value) = update else { return }
            mutation.read(inbox: StoreMapping.peerID(value.peer), maxID: value.maxId)
        },
        API.Update.UpdateReadHistoryOutbox.constructorID: { update, mutation in
            guard case let .updateReadHistoryOutbox(value) = update else { return }
            mutation.read(outbox: StoreMapping.peerID(value.peer), maxID: value.maxId)
        },
        API.Update.UpdateReadChannelInbox.constructorID: { update, mutation in
            guard case let .updateReadChannelInbox(value) = update else { return }
            mutation.read(inbox: StoreMapping.channel(value.channelId), maxID: value.maxId)
        },
        API.Update.UpdateReadChannelOutbox.constructorID: { update, mutation in
            guard case let .updateReadChannelOutbox(value) = update else { return }
            mutation.read(outbox: StoreMapping.channel(value.channelId), maxID: value.maxId)
        },
    ]

    private static func addMessage(_ message: API.Message, _ mutation: inout AccountMutation) {
        if let stored = StoreMapping.message(message) { mutation.add(stored) }
    }

    static func apply(_ update: API.Update, to mutation: inout AccountMutation) {
        table[update.constructorID]?(update, &mutation)
    }
}

extension AccountMutation {
    /// The store's share of a batch of sequencer outputs, with the state the batch ends in as cursor.
    public init(_ outputs: [SequencerOutput], state: SyncState) {
        self.init()
        for output in outputs {
            switch output {
            case let .deliver(update): UpdateHandlers.apply(update, to: &self)
            case let .entities(users, chats): merge(users: users, chats: chats)
            case let .channelReset(channel, latest):
                resetHistory(ofChannel: channel)
                for message in latest { if let stored = StoreMapping.message(message) { add(stored) } }
            case .differenceTooLong: reopenCommonHistories()
            case .getDifference, .getChannelDifference: break
            }
        }
        setCursor(state)
    }
}
