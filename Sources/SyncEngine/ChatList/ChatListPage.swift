import Postbox
import TL

/// Where the next `messages.getDialogs` page starts: the last dialog of the previous one (its top message's date and
/// id, and the peer), as core.telegram.org/api/offsets asks; `.top` is the first page.
public struct DialogOffset: Equatable, Sendable {
    /// `offset_date`: the date of the last dialog's top message.
    public var date: Int32
    /// `offset_id`: the last dialog's top message.
    public var id: Int32
    /// `offset_peer`: the last dialog's peer.
    public var peer: API.InputPeer

    /// The first page.
    public static let top = DialogOffset(date: 0, id: 0, peer: .inputPeerEmpty(.init()))

    /// Resuming a hole left at `timestamp` by an earlier run: one second past it, so dialogs of that very second are
    /// asked again (stored twice is harmless; skipped would be lost).
    public static func resuming(below timestamp: Int32) -> DialogOffset {
        timestamp >= Int32.max - 1 ? .top : DialogOffset(date: timestamp + 1, id: 0, peer: .inputPeerEmpty(.init()))
    }
}

/// One `messages.getDialogs` answer as what it changes in the store (compute, then commit): the peers, each
/// dialog's top message, read state and pin, and how far the chat list's hole shrinks. Applied in one transaction.
public struct ChatListPage: Sendable {
    struct Entry: Sendable {
        var peer: PeerID
        var topMessage: Message?
        var readState: ReadState
        var pinnedIndex: Int32?
        /// The server's draft of the chat (nil: none) and its notification settings.
        var draft: Draft?
        var notificationSettings: NotificationSettings
    }

    var peers: [Peer]
    var entries: [Entry]
    /// The hole after this page: nil when the list is complete, else the oldest top-message date it covered.
    public let holeAfter: Int32?
    /// Where the next page starts (nil when complete).
    public let next: DialogOffset?

    /// The page `answer` makes of a request for `limit` dialogs below the chat-list hole that reached
    /// `previousHole`.
    public init(_ answer: API.messages.Dialogs, requested limit: Int32, previousHole: Int32) {
        let (dialogs, messages, users, chats) = answer.parts
        peers = StoreMapping.peers(users: users, chats: chats)
        let stored = Dictionary(messages.compactMap(StoreMapping.message).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var entries: [Entry] = []
        var pins: Int32 = 0
        var last: (date: Int32, id: Int32, peer: PeerID)?
        for case let .dialog(dialog) in dialogs {
            let peer = StoreMapping.peerID(dialog.peer)
            let top = stored[MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: dialog.topMessage)]
            var pin: Int32?
            if dialog.pinned {
                pin = pins
                pins += 1
            }
            entries.append(Entry(peer: peer, topMessage: top,
                                 readState: ReadState(maxIncomingReadID: dialog.readInboxMaxId, maxOutgoingReadID: dialog.readOutboxMaxId,
                                                      unreadCount: max(0, dialog.unreadCount)),
                                 pinnedIndex: pin, draft: dialog.draft.flatMap(StoreMapping.draft),
                                 notificationSettings: StoreMapping.notificationSettings(dialog.notifySettings)))
            if !dialog.pinned { last = (top?.timestamp ?? 0, dialog.topMessage, peer) }
        }
        self.entries = entries
        let whole: Bool = switch answer {
        case .dialogs, .dialogsNotModified: true
        case .dialogsSlice: false
        }
        if whole || entries.count < Int(limit) || last == nil {
            (holeAfter, next) = (nil, nil)
        } else if let last {
            // Never move the hole up: a page whose dates went backwards (a server's tie) keeps what was reached.
            holeAfter = min(previousHole, last.date)
            let stored = peers.first { $0.id == last.peer }
            next = DialogOffset(date: last.date, id: last.id,
                                peer: StoreMapping.inputPeer(last.peer, stored: stored) ?? .inputPeerEmpty(.init()))
        } else {
            (holeAfter, next) = (nil, nil)
        }
    }

    /// Writes the page: peers, top messages (a chat's history older than its top stays a hole, newer is known as of
    /// this answer unless newer messages are already stored), read states that are not older than the stored ones,
    /// pins, drafts and notification settings, chats without messages, and the shrunk hole.
    public func apply(_ transaction: Transaction) throws {
        try StoreMapping.store(peers, in: transaction)
        let tops = entries.compactMap(\.topMessage)
        if !tops.isEmpty { try transaction.addMessages(tops) }
        for entry in entries {
            if let top = entry.topMessage {
                let newest = try transaction.latestMessages(peer: entry.peer, namespace: StoreMapping.cloudMessages, limit: 1).first
                let above = newest.map { $0.id.id > top.id.id } ?? false
                let key = HoleKey(peer: entry.peer, namespace: StoreMapping.cloudMessages, space: .everywhere)
                try transaction.removeHole(key, top.id.id...(above ? top.id.id : SeedConfiguration.allIDs.upperBound))
            } else {
                try transaction.setChatListInclusion(entry.peer, included: true)
            }
            let local = try transaction.readState(entry.peer, namespace: StoreMapping.cloudMessages)
            if entry.readState.maxIncomingReadID >= local.maxIncomingReadID {
                var state = entry.readState
                state.maxOutgoingReadID = max(state.maxOutgoingReadID, local.maxOutgoingReadID)
                try transaction.setReadState(entry.peer, namespace: StoreMapping.cloudMessages, state)
            } else if entry.readState.maxOutgoingReadID > local.maxOutgoingReadID {
                try transaction.applyOutgoingReadMaxID(entry.peer, namespace: StoreMapping.cloudMessages,
                                                       maxID: entry.readState.maxOutgoingReadID)
            }
            if let pin = entry.pinnedIndex { try transaction.setPinned(entry.peer, index: pin) }
            try transaction.setDraft(entry.peer, entry.draft)
            try transaction.setNotificationSettings(entry.peer, entry.notificationSettings)
        }
        try transaction.setChatListHole(holeAfter)
    }
}
