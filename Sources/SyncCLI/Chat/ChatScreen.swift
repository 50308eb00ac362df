import Foundation
import SyncEngine

/// The state of `synccore chat` and what keys do to it (sans-I/O: the command feeds it keys and the account's views,
/// runs the effects it returns, and draws `ChatScreenLayout.lines(of:)`). Nothing here waits or touches the account.
struct ChatScreen {
    enum Focus: Equatable { case list, chat }

    /// What the command does for the screen.
    enum Effect: Equatable {
        /// Show `peer`'s conversation around `anchor` (a new view replaces the open one).
        case open(PeerID, anchor: ChatHistoryView.Anchor)
        case send(String, to: PeerID, replyTo: Int32?)
        case edit(Int32, in: PeerID, text: String)
        case delete(Int32, in: PeerID)
        case pin(Int32, in: PeerID, unpin: Bool)
        case forward(Int32, from: PeerID, to: String)
        case search(String, in: PeerID)
        case download(Int32, in: PeerID)
        /// Find `@username` (or a stored peer's id) and open its chat (`ChatScreen.openChat`).
        case find(String)
        case markRead(PeerID, upTo: Int32)
        case typing(PeerID)
        case quit
    }

    var rows: [ChatRow] = []
    var selected = 0
    var focus = Focus.list
    /// The open chat and its window; `anchor` is the message at the window's bottom line (`.latest`: the newest).
    var open: PeerID?
    var anchor = ChatHistoryView.Anchor.latest
    var conversation: ChatHistoryView.Snapshot?
    var compose = ""
    var readiness = ConnectionReadiness.connecting
    var isFollower = false
    var status = "Tab: list/chat · ↑↓ choose · Enter open/send · PgUp/PgDn scroll · /help"
    var searchResults: [Message]?
    /// Who typed where, until when (from `TypingMarks`).
    var typingChats: Set<PeerID> = []
    /// Message lines the conversation area has room for (set by the layout from the terminal's height).
    var visibleMessages = 20
    var lastTypingSent: Double = 0

    var openRow: ChatRow? { rows.first { $0.peer == open } }
    /// The open chat's title before it has a row (a chat opened by `/open` with no message yet).
    var openTitle = ""

    /// What the open chat is called: its row's title, else the name it was opened by.
    var openChatTitle: String {
        if let title = openRow?.title, !title.isEmpty { return title }
        return openTitle.isEmpty ? "chat \(open?.id ?? 0)" : openTitle
    }

    // MARK: input from the account

    /// New chat-list rows: the selection stays on its chat.
    mutating func showRows(_ new: [ChatRow]) {
        let selectedPeer = focus == .chat && open != nil ? open : rows.indices.contains(selected) ? rows[selected].peer : nil
        rows = new
        selected = selectedPeer.flatMap { peer in new.firstIndex { $0.peer == peer } } ?? min(selected, max(0, new.count - 1))
    }

    /// A new window of the open chat. Shown at the newest, what arrived is read (the effect marks it on the server).
    mutating func showConversation(_ snapshot: ChatHistoryView.Snapshot, of peer: PeerID) -> [Effect] {
        guard peer == open else { return [] }
        conversation = snapshot
        guard anchor == .latest, let row = openRow, row.unreadCount > 0,
              let newest = snapshot.items.last(where: { !$0.isPending })?.message.id.id else { return [] }
        return [.markRead(peer, upTo: newest)]
    }

    // MARK: keys

    mutating func handle(_ key: TerminalKey, now: Double) -> [Effect] {
        switch key {
        case .interrupt: return [.quit]
        case .tab:
            focus = focus == .list && open != nil ? .chat : .list
        case .escape:
            searchResults = nil
            compose = ""
        case .up where focus == .list:
            selected = max(0, selected - 1)
        case .down where focus == .list:
            selected = min(max(0, rows.count - 1), selected + 1)
        case .up, .pageUp:
            return scrollOlder(by: key == .up ? 1 : max(1, visibleMessages - 1))
        case .down, .pageDown:
            return scrollNewer(by: key == .down ? 1 : max(1, visibleMessages - 1))
        case .end:
            return jumpToLatest()
        case .backspace:
            if !compose.isEmpty { compose.removeLast() }
        case let .character(character):
            compose.append(character)
            if let open, !compose.hasPrefix("/"), now - lastTypingSent >= Typing.lifetime / 2 {
                lastTypingSent = now
                return [.typing(open)]
            }
        case .enter:
            return enter()
        case .home where focus == .list:
            selected = 0
        case .left, .right, .home:
            break
        }
        return []
    }

    private mutating func enter() -> [Effect] {
        let text = compose.trimmingCharacters(in: .whitespaces)
        if text.isEmpty {
            guard focus == .list, rows.indices.contains(selected) else { return [] }
            return openChat(rows[selected].peer)
        }
        compose = ""
        if text.hasPrefix("/") { return command(text) }
        guard let open else {
            status = "open a chat first (↑↓ and Enter)"
            return []
        }
        return [.send(text, to: open, replyTo: nil)]
    }

    mutating func openChat(_ peer: PeerID, title: String = "") -> [Effect] {
        open = peer
        openTitle = title
        if let index = rows.firstIndex(where: { $0.peer == peer }) { selected = index }
        anchor = .latest
        conversation = nil
        searchResults = nil
        focus = .chat
        return [.open(peer, anchor: .latest)]
    }

    // MARK: scrolling

    /// Messages the open chat's window holds: twice what the screen shows, so a page either way is already loaded.
    var windowCount: Int { max(20, visibleMessages * 2) }

    /// The window reaches the chat's first message: no hole below it, and fewer older messages than it could hold.
    var reachesTheBeginning: Bool {
        guard let conversation, conversation.window.earlierHole == nil else { return false }
        let messages = conversation.window.messages
        guard case let .around(id) = anchor else { return messages.count < windowCount }
        return (messages.firstIndex { $0.id.id >= id } ?? messages.count) < windowCount / 2
    }

    /// The lines of the conversation, oldest first: the newest (and the pending sends) at `.latest`, otherwise up to
    /// the anchor; at the chat's beginning, from its first message down.
    var shownItems: [ChatHistoryView.Item] {
        guard let items = conversation?.items else { return [] }
        guard case let .around(id) = anchor, let end = items.lastIndex(where: { !$0.isPending && $0.message.id.id <= id }) else {
            return Array(items.suffix(visibleMessages))
        }
        if end < visibleMessages, reachesTheBeginning { return Array(items.prefix(visibleMessages)) }
        return Array(items[...end].suffix(visibleMessages))
    }

    /// The window's server messages and where the bottom line is among them.
    private var bottomPosition: (messages: [ChatHistoryView.Item], index: Int)? {
        guard let conversation, let bottom = shownItems.last(where: { !$0.isPending }) else { return nil }
        let messages = conversation.items.filter { !$0.isPending }
        return messages.firstIndex(where: { $0.message.id == bottom.message.id }).map { (messages, $0) }
    }

    private mutating func scrollOlder(by lines: Int) -> [Effect] {
        guard let open, let (messages, index) = bottomPosition else { return [] }
        return reanchor(open, at: messages[max(0, index - lines)].message.id.id)   // the top: nothing older yet, or loading
    }

    private mutating func scrollNewer(by lines: Int) -> [Effect] {
        guard let open, let conversation, anchor != .latest else { return [] }
        guard let (messages, index) = bottomPosition else { return jumpToLatest() }
        if index + lines >= messages.count - 1, !conversation.loadingNewer { return jumpToLatest() }
        return reanchor(open, at: messages[min(messages.count - 1, index + lines)].message.id.id)
    }

    /// Moves the window's bottom to message `id`; nothing when it is there already.
    private mutating func reanchor(_ open: PeerID, at id: Int32) -> [Effect] {
        guard anchor != .around(id) else { return [] }
        anchor = .around(id)
        return [.open(open, anchor: anchor)]
    }

    private mutating func jumpToLatest() -> [Effect] {
        guard let open, anchor != .latest else { return [] }
        anchor = .latest
        return [.open(open, anchor: .latest)]
    }

    // MARK: commands

    static let help = "/open @user · /reply ID text · /edit ID text · /delete ID · /pin ID · /unpin ID · /forward ID @user · /search text · /download ID · /quit"

    private mutating func command(_ text: String) -> [Effect] {
        let words = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        let name = words[0]
        if name == "/quit" { return [.quit] }
        if name == "/help" {
            status = Self.help
            return []
        }
        if name == "/open", words.count > 1 { return [.find(words[1])] }
        guard let open else {
            status = "open a chat first"
            return []
        }
        let id = words.count > 1 ? Int32(words[1]) : nil
        let rest = words.count > 2 ? words[2] : ""
        switch (name, id) {
        case ("/reply", let id?) where !rest.isEmpty: return [.send(rest, to: open, replyTo: id)]
        case ("/edit", let id?) where !rest.isEmpty: return [.edit(id, in: open, text: rest)]
        case ("/delete", let id?): return [.delete(id, in: open)]
        case ("/pin", let id?): return [.pin(id, in: open, unpin: false)]
        case ("/unpin", let id?): return [.pin(id, in: open, unpin: true)]
        case ("/forward", let id?) where !rest.isEmpty: return [.forward(id, from: open, to: rest)]
        case ("/download", let id?): return [.download(id, in: open)]
        case ("/search", _) where words.count > 1:
            return [.search(words.dropFirst().joined(separator: " "), in: open)]
        default:
            status = "unknown command or missing argument: \(Self.help)"
            return []
        }
    }
}
