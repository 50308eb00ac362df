import Foundation
import SyncEngine

/// What `synccore chat` shows, as exactly `height` lines of exactly `width` cells (sans-I/O: the terminal writes the
/// lines that changed since the last frame). Top: the account and the connection; left: the chat list with unread
/// badges; right: the open chat, oldest line first, ✓ sent / ✓✓ read on the account's messages, "pending" on sends
/// the server has not confirmed; a "loading" line where a hole is being filled; bottom: a status line and the compose
/// line.
enum ChatScreenLayout {
    static func lines(of screen: ChatScreen, width: Int, height: Int, me: String, now: Int32) -> [String] {
        guard width >= 20, height >= 6 else { return (0..<max(1, height)).map { $0 == 0 ? TerminalText.fitted("terminal too small", width: width) : TerminalText.fitted("", width: width) } }
        let listWidth = min(32, max(14, width / 3))
        let chatWidth = width - listWidth - 1
        let bodyHeight = height - 3
        var lines = [TerminalText.fitted(header(screen, me: me), width: width)]
        let list = chatList(screen, width: listWidth, height: bodyHeight, now: now)
        let chat = conversation(screen, width: chatWidth, height: bodyHeight)
        for index in 0..<bodyHeight { lines.append(list[index] + "│" + chat[index]) }
        lines.append(TerminalText.fitted(screen.status, width: width))
        let prompt = screen.open == nil ? "  " : "> "
        lines.append(TerminalText.fitted(prompt + screen.compose, width: width))
        return lines
    }

    /// Where the cursor goes: after the compose text.
    static func cursor(of screen: ChatScreen, width: Int, height: Int) -> (row: Int, column: Int) {
        (height, min(width, 3 + TerminalText.width(of: screen.compose)))
    }

    static func header(_ screen: ChatScreen, me: String) -> String {
        let connection: String
        if screen.isFollower {
            connection = "following the process that syncs this account"
        } else {
            switch screen.readiness {
            case .ready: connection = "online"
            case .connecting: connection = "OFFLINE — connecting; messages are sent when the connection is back"
            case .waitingForNetwork: connection = "OFFLINE — waiting for the network"
            }
        }
        return " synccore chat · \(me) · \(connection)"
    }

    static func chatList(_ screen: ChatScreen, width: Int, height: Int, now: Int32) -> [String] {
        let first = max(0, min(screen.selected - height + 1, screen.rows.count - height))
        var lines: [String] = []
        for (index, row) in screen.rows.enumerated().dropFirst(first).prefix(height) {
            let marker = index == screen.selected ? (screen.focus == .list ? ">" : "*") : " "
            var badges = ""
            if screen.typingChats.contains(row.peer) { badges += " ✎" }
            if row.isMuted(at: now) { badges += " (muted)" }
            if row.unreadCount > 0 { badges += " (\(row.unreadCount))" }
            let title = row.title.isEmpty ? "chat \(row.peer.id)" : row.title
            let pin = row.pinnedIndex != nil ? "📌" : ""
            let badgeWidth = TerminalText.width(of: badges)
            let name = TerminalText.fitted("\(marker) \(pin)\(title)", width: max(1, width - badgeWidth))
            lines.append(TerminalText.fitted(name + badges, width: width))
        }
        if screen.rows.isEmpty { lines.append(TerminalText.fitted(" no chats yet", width: width)) }
        while lines.count < height { lines.append(String(repeating: " ", count: width)) }
        return Array(lines.prefix(height))
    }

    static func conversation(_ screen: ChatScreen, width: Int, height: Int) -> [String] {
        let blank = String(repeating: " ", count: width)
        guard screen.open != nil else {
            return [TerminalText.fitted(" choose a chat and press Enter", width: width)] + Array(repeating: blank, count: height - 1)
        }
        let (row, title) = (screen.openRow, screen.openChatTitle)
        var lines = [TerminalText.fitted(" \(title)" + (screen.anchor == .latest ? "" : "  (scrolled back: End for the newest)"), width: width)]
        let room = height - 1
        if let results = screen.searchResults {
            lines.append(TerminalText.fitted(" search: \(results.count) found (Esc closes)", width: width))
            for message in results.prefix(room - 1) { lines.append(TerminalText.fitted(messageLine(message, pending: false, outgoingRead: 0, chat: title), width: width)) }
        } else if let conversation = screen.conversation {
            var body: [String] = []
            let items = screen.shownItems
            if conversation.loadingOlder, items.first?.message.id == conversation.items.first?.message.id {
                body.append(" ↑ loading older messages…")
            } else if screen.reachesTheBeginning, !items.isEmpty, items.first?.message.id == conversation.items.first?.message.id {
                body.append(" — the beginning of the chat —")
            }
            let readMark = row?.outgoingReadMaxID ?? 0
            for item in items { body.append(messageLine(item.message, pending: item.isPending, outgoingRead: readMark, chat: title)) }
            if conversation.loadingNewer, screen.anchor == .latest { body.append(" ↓ loading newer messages…") }
            if items.isEmpty, !conversation.loadingOlder { body.append(" no messages yet") }
            lines += body.suffix(room).map { TerminalText.fitted($0, width: width) }
        } else {
            lines.append(TerminalText.fitted(" loading…", width: width))
        }
        while lines.count < height { lines.append(blank) }
        return Array(lines.prefix(height))
    }

    /// "12 Alice: hello", "13 me: hi ✓✓", "me: later (pending)".
    /// `chat` names the author of incoming messages (a private chat's other side).
    static func messageLine(_ message: Message, pending: Bool, outgoingRead: Int32, chat: String) -> String {
        let outgoing = !message.flags.contains(.incoming)
        let author = outgoing ? "me" : chat
        var text = message.text
        if let media = message.media { text = MediaFormat.describe(media) + (text.isEmpty ? "" : " " + text) }
        if message.forward != nil { text = "(forwarded) " + text }
        if let reply = message.reply?.messageID { text = "↩\(reply) " + text }
        let id = pending ? "" : "\(message.id.id) "
        let mark: String
        if pending { mark = message.flags.contains(.failed) ? "  (failed)" : "  (pending)" }
        else if outgoing { mark = message.id.id <= outgoingRead ? " ✓✓" : " ✓" }
        else { mark = "" }
        return " \(id)\(author): \(text)\(mark)"
    }
}
