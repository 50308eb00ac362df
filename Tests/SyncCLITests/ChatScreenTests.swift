@testable import Postbox
@testable import SyncEngine
import Testing
@testable import SyncCLI

/// `synccore chat`'s sans-I/O parts: display widths, key decoding, and what the screen does with rows, windows and keys.
struct ChatScreenTests {
    static let alice = PeerID(namespace: StoreMapping.userNamespace, id: 1001)
    static let carol = PeerID(namespace: StoreMapping.userNamespace, id: 1003)

    @Test func wideAndCombiningCharactersTakeTheirCellsAndLinesAreCutToTheWidth() {
        #expect(TerminalText.width(of: "abc") == 3)
        #expect(TerminalText.width(of: "你好") == 4)
        #expect(TerminalText.width(of: "👋") == 2)
        #expect(TerminalText.width(of: "e\u{301}") == 1)
        #expect(TerminalText.fitted("你好世界", width: 5) == "你好…")
        #expect(TerminalText.width(of: TerminalText.fitted("你好世界", width: 4)) == 4)
        #expect(TerminalText.fitted("ab", width: 4) == "ab  ")
        // A newline or escape in a message cannot move the cursor.
        #expect(TerminalText.fitted("a\nb\u{1B}[2J", width: 8) == "a·b·[2J ")
        for text in ["你好世界 hello", "👋👋👋", "plain text that is long"] {
            for width in 1...12 { #expect(TerminalText.width(of: TerminalText.fitted(text, width: width)) == width) }
        }
    }

    @Test func keysAreDecodedAcrossReadsAndUnknownSequencesAreDropped() {
        var decoder = TerminalKeyDecoder()
        #expect(decoder.feed(Array("hé".utf8)) == [.character("h"), .character("é")])
        let wave = Array("👋".utf8)
        #expect(decoder.feed(wave.prefix(2)) == [])
        #expect(decoder.feed(wave.dropFirst(2)) == [.character("👋")])
        #expect(decoder.feed([0x1B, 0x5B]) == [])
        #expect(decoder.feed([0x41, 0x1B, 0x5B, 0x35, 0x7E, 0x0D, 0x7F, 0x09, 0x03]) == [.up, .pageUp, .enter, .backspace, .tab, .interrupt])
        #expect(decoder.feed([0x1B, 0x5B, 0x39, 0x39, 0x7A, 0x61]) == [.character("a")])
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.flushEscape() == .escape)
        #expect(decoder.feed([0xFF, 0x80, 0x62]) == [.character("b")])
    }

    static func row(_ peer: PeerID, unread: Int32 = 0, read: Int32 = 0) -> ChatRow {
        ChatRow(peer: peer, title: peer == alice ? "Alice" : "Carol", unreadCount: unread, lastMessage: nil, lastMessageIsPending: false,
                outgoingReadMaxID: read, pinnedIndex: nil, mutedUntil: nil, draft: nil)
    }

    static func message(_ id: Int32, in peer: PeerID = alice, incoming: Bool = true, text: String? = nil) -> Message {
        Message(id: MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: id), timestamp: id,
                flags: incoming ? [.incoming] : [], author: incoming ? peer : nil, text: text ?? "m \(id)")
    }

    static func snapshot(_ ids: ClosedRange<Int32>, pending: [Message] = [], earlierHole: Bool = false) -> ChatHistoryView.Snapshot {
        let messages = ids.map { message($0) }
        let window = MessageHistoryView.Snapshot(messages: messages, earlierHole: earlierHole ? 1...1 : nil, laterHole: nil, anchorID: ids.upperBound)
        return ChatHistoryView.Snapshot(items: messages.map { .init(message: $0, isPending: false) } + pending.map { .init(message: $0, isPending: true) },
                                        window: window)
    }

    @Test func anOpenChatAtItsNewestIsMarkedReadAndItsBadgeAndMarksAreDrawn() {
        var screen = ChatScreen()
        screen.showRows([Self.row(Self.carol), Self.row(Self.alice, unread: 2, read: 3)])
        let list = ChatScreenLayout.lines(of: screen, width: 60, height: 12, me: "Bob", now: 0)
        #expect(list.contains { $0.contains("Alice") && $0.contains("(2)") })
        #expect(screen.handle(.down, now: 0) == [])
        #expect(screen.handle(.enter, now: 0) == [.open(Self.alice, anchor: .latest)])
        let pending = Message(id: MessageID(peer: Self.alice, namespace: OutboxEntry.localMessages, id: 1), timestamp: 9, text: "later")
        var outgoing = Self.snapshot(1...4)
        outgoing = ChatHistoryView.Snapshot(items: outgoing.items.enumerated().map { index, item in
            index >= 2 ? .init(message: Self.message(item.message.id.id, incoming: false), isPending: false) : item
        } + [.init(message: pending, isPending: true)], window: outgoing.window)
        #expect(screen.showConversation(outgoing, of: Self.alice) == [.markRead(Self.alice, upTo: 4)])
        #expect(screen.showConversation(outgoing, of: Self.carol) == [])
        let lines = ChatScreenLayout.lines(of: screen, width: 60, height: 12, me: "Bob", now: 0)
        #expect(lines.allSatisfy { TerminalText.width(of: $0) == 60 })
        #expect(lines.contains { $0.contains("3 me: m 3 ✓✓") })
        #expect(lines.contains { $0.contains("4 me: m 4 ✓") && !$0.contains("✓✓") })
        #expect(lines.contains { $0.contains("me: later  (pending)") })
        #expect(lines[0].contains("OFFLINE"))
        screen.readiness = .ready
        #expect(ChatScreenLayout.lines(of: screen, width: 60, height: 12, me: "Bob", now: 0)[0].contains("online"))
    }

    @Test func pagingUpAnchorsAtTheTopLineAndStopsWhereNothingOlderIsStored() {
        var screen = ChatScreen()
        screen.showRows([Self.row(Self.alice)])
        _ = screen.openChat(Self.alice)
        screen.visibleMessages = 10
        _ = screen.showConversation(Self.snapshot(50...89, earlierHole: true), of: Self.alice)
        #expect(screen.shownItems.map(\.message.id.id) == Array(80...89))
        #expect(screen.handle(.pageUp, now: 0) == [.open(Self.alice, anchor: .around(80))])
        _ = screen.showConversation(Self.snapshot(60...99), of: Self.alice)
        #expect(screen.shownItems.map(\.message.id.id) == Array(71...80))
        // Where the window's oldest is the top line and a hole is being filled, paging waits for it.
        _ = screen.showConversation(Self.snapshot(80...99, earlierHole: true), of: Self.alice)
        #expect(screen.handle(.pageUp, now: 0) == [])
        let lines = ChatScreenLayout.lines(of: screen, width: 60, height: 15, me: "Bob", now: 0)
        #expect(lines.contains { $0.contains("loading older messages") })
        #expect(screen.handle(.end, now: 0) == [.open(Self.alice, anchor: .latest)])
    }

    @Test func commandsBecomeTheirEffectsAndTextIsSentToTheOpenChat() {
        var screen = ChatScreen()
        for character in "hello" { _ = screen.handle(.character(character), now: 100) }
        #expect(screen.handle(.enter, now: 100) == [])
        #expect(screen.status.contains("open a chat first"))
        _ = screen.openChat(Self.alice)
        #expect(screen.handle(.character("h"), now: 100) == [.typing(Self.alice)])
        #expect(screen.handle(.character("i"), now: 101) == [])
        #expect(screen.handle(.enter, now: 101) == [.send("hi", to: Self.alice, replyTo: nil)])
        func type(_ text: String) -> [ChatScreen.Effect] {
            for character in text { _ = screen.handle(.character(character), now: 0) }
            return screen.handle(.enter, now: 0)
        }
        #expect(type("/reply 7 sure") == [.send("sure", to: Self.alice, replyTo: 7)])
        #expect(type("/edit 7 fixed text") == [.edit(7, in: Self.alice, text: "fixed text")])
        #expect(type("/delete 7") == [.delete(7, in: Self.alice)])
        #expect(type("/pin 7") == [.pin(7, in: Self.alice, unpin: false)])
        #expect(type("/forward 7 @carol") == [.forward(7, from: Self.alice, to: "@carol")])
        #expect(type("/search two words") == [.search("two words", in: Self.alice)])
        #expect(type("/download 7") == [.download(7, in: Self.alice)])
        #expect(type("/open @carol") == [.find("@carol")])
        #expect(type("/edit x") == [])
        #expect(screen.status.contains("unknown command"))
        #expect(type("/quit") == [.quit])
    }
}
