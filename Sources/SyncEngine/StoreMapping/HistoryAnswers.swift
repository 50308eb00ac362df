import TL

/// The parts of `messages.Messages` whatever its form (`messages.getHistory` and friends answer one of four), so
/// callers read them in one place.
extension API.messages.Messages {
    /// The page's messages.
    public var messages: [API.Message] { parts.messages }
    /// The users the page names.
    public var users: [API.User] { parts.users }
    /// The chats and channels the page names.
    public var chats: [API.Chat] { parts.chats }
    /// The server's total for the query: a slice's `count`, or the number of messages in a whole answer.
    public var totalCount: Int { parts.count }

    private var parts: (messages: [API.Message], users: [API.User], chats: [API.Chat], count: Int) {
        switch self {
        case let .messages(value): (value.messages, value.users, value.chats, value.messages.count)
        case let .messagesSlice(value): (value.messages, value.users, value.chats, Int(value.count))
        case let .channelMessages(value): (value.messages, value.users, value.chats, Int(value.count))
        case .messagesNotModified: ([], [], [], 0)
        }
    }
}

/// The same for `messages.Dialogs` (`messages.getDialogs`).
extension API.messages.Dialogs {
    /// The dialogs, their top messages and the peers they name, whatever the answer's form.
    public var parts: (dialogs: [API.Dialog], messages: [API.Message], users: [API.User], chats: [API.Chat]) {
        switch self {
        case let .dialogs(value): (value.dialogs, value.messages, value.users, value.chats)
        case let .dialogsSlice(value): (value.dialogs, value.messages, value.users, value.chats)
        case .dialogsNotModified: ([], [], [], [])
        }
    }
}
