import Foundation
import Postbox
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// The chat list as ready-made rows over real sockets: a new chat appears with its title, unread count and last
/// message without reopening the view; a read alone redraws its row; a send is the row's last message at once, pending
/// until the server's copy replaces it; the unread count equals the server's after history holes are filled.
@Suite(.timeLimit(.minutes(3)))
struct ChatRowsTests {
    @Test func rowsFollowMessagesReadsAndPendingSends() async throws {
        try await AccountTests.withAliceAndBob("chat-rows") { alice, bob in
            let bobPeer = try await alice.resolve(username: "bob")
            let aliceChat = StoreMapping.user(try #require(await alice.user?.id))
            var bobRows = bob.chatRows().makeAsyncIterator()
            for text in ["one", "two", "three"] { try await alice.send(text, to: bobPeer) }

            let arrived = try #require(try await TestWorld.firstSnapshot(&bobRows) { $0.first { $0.peer == aliceChat }?.unreadCount == 3 })
            let row = try #require(arrived.first { $0.peer == aliceChat })
            #expect(row.title == "Alice" && row.lastMessage?.text == "three" && !row.lastMessageIsPending)

            // A read changes only the read state: the row is redrawn all the same.
            try await bob.markRead(aliceChat, upTo: try #require(row.lastMessage?.id.id))
            let read = try await TestWorld.firstSnapshot(&bobRows) { $0.first { $0.peer == aliceChat }?.unreadCount == 0 }
            #expect(read != nil)

            // Alice's row shows her send at once, pending (its local copy) until the server's copy replaces it.
            var aliceRows = alice.chatRows().makeAsyncIterator()
            let outgoing = try await alice.send("sent from here", to: bobPeer)
            let shown = try #require(try await TestWorld.firstSnapshot(&aliceRows) { $0.first { $0.peer == bobPeer }?.lastMessage?.text == "sent from here" })
            let shownRow = try #require(shown.first { $0.peer == bobPeer })
            #expect(shownRow.lastMessageIsPending == (shownRow.lastMessage?.id == outgoing.local))
            let server = try #require(try await outgoing.sent())
            let confirmed = try await TestWorld.firstSnapshot(&aliceRows) { $0.first { $0.peer == bobPeer }?.lastMessage?.id == server }
            #expect(confirmed?.first { $0.peer == bobPeer }?.lastMessageIsPending == false)
        }
    }

    @Test func theUnreadCountEqualsTheServersThroughHoleFills() async throws {
        try await AccountTests.withServer("chat-rows-unread") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bobPeer = try await alice.resolve(username: "bob")
            let aliceChat = StoreMapping.user(try #require(await alice.user?.id))
            var sends: [OutgoingMessage] = []
            for index in 0..<60 { sends.append(try await alice.send("message \(index)", to: bobPeer)) }
            for send in sends { _ = try await send.sent() }   // all on the server before Bob's new device asks
            // Bob on a new device: the chat list comes from the server, the history as a hole above what it brought.
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            try await bob.chatListFilled()
            var rows = bob.chatRows().makeAsyncIterator()
            let listed = try await TestWorld.firstSnapshot(&rows) { $0.contains { $0.peer == aliceChat } }
            #expect(listed?.first { $0.peer == aliceChat }?.unreadCount == 60)
            // Scrolling back fills the hole; the count stays the server's.
            for try await update in bob.history(aliceChat, count: 100) where update.snapshot.messages.count >= 60 { break }
            let input = try await bob.inputPeer(aliceChat)
            guard case let .peerDialogs(dialogs) = try await bob.network.send(API.functions.messages.GetPeerDialogs(
                peers: [.inputDialogPeer(.init(peer: input))])), case let .dialog(dialog)? = dialogs.dialogs.first else {
                Issue.record("no dialog"); return
            }
            let stored = try await bob.postbox.read { try ChatRowsView(count: 50).load($0) }.first { $0.peer == aliceChat }
            #expect(dialog.unreadCount == 60)
            #expect(stored?.unreadCount == dialog.unreadCount)
            #expect(stored?.lastMessage?.text == "message 59")
            await bob.close()
            await alice.close()
        }
    }
}
