import Foundation
import Postbox
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// `Account.conversation` over real sockets: a new device scrolls a chat back to its first message, each window's
/// hole fetched while it shows as loading; a send is in the window at once, pending, then confirmed in its place.
@Suite(.timeLimit(.minutes(3)))
struct ConversationViewTests {
    @Test func aNewDeviceScrollsBackToTheFirstMessage() async throws {
        try await AccountTests.withServer("conversation-scroll") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bobPeer = try await alice.resolve(username: "bob")
            let aliceChat = StoreMapping.user(try #require(await alice.user?.id))
            var sends: [OutgoingMessage] = []
            for index in 0..<300 { sends.append(try await alice.send("message \(index)", to: bobPeer)) }
            for send in sends { _ = try await send.sent() }
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            try await bob.chatListFilled()

            var window = try #require(try await TestWorld.firstSnapshot(bob.conversation(aliceChat, count: 40)) { !$0.loadingOlder && $0.items.count == 40 })
            #expect(window.items.last?.message.text == "message 299")
            var windows = 1
            while window.items.first?.message.text != "message 0", windows < 30 {
                let oldest = try #require(window.items.first?.message.id.id)
                window = try #require(try await TestWorld.firstSnapshot(bob.conversation(aliceChat, anchor: .around(oldest), count: 40)) { snapshot in
                    !snapshot.loadingOlder && (snapshot.items.first?.message.id.id ?? oldest) < oldest
                        || snapshot.items.first?.message.text == "message 0"
                })
                windows += 1
            }
            #expect(window.items.first?.message.text == "message 0")
            #expect(windows >= 1 + (300 - 40) / 20)   // each window moves back by no more than half of its 40
            let stored = try await TestWorld.messages(in: bob.postbox, with: aliceChat.id)
            #expect(stored.count == 300 && Set(stored.map(\.text)).count == 300)
            await bob.close()
            await alice.close()
        }
    }

    @Test func aSendShowsAtOncePendingThenConfirmedInItsPlace() async throws {
        try await AccountTests.withAliceAndBob("conversation-pending") { alice, _ in
            let bobPeer = try await alice.resolve(username: "bob")
            let server = try #require(try await alice.send("first", to: bobPeer).sent())
            let updates = alice.conversation(bobPeer, count: 20)
            var iterator = updates.makeAsyncIterator()
            _ = try await iterator.next()   // what is stored now
            let outgoing = try await alice.send("second", to: bobPeer)
            var sawPending = false
            var confirmed: ChatHistoryView.Snapshot?
            while confirmed == nil, let update = try await iterator.next() {
                let items = update.snapshot.items
                if items.contains(where: { $0.isPending && $0.message.id == outgoing.local && $0.message.text == "second" }) {
                    sawPending = true
                    #expect(items.first?.message.id == server)   // after the confirmed messages
                }
                if items.last?.message.text == "second", items.last?.isPending == false { confirmed = update.snapshot }
            }
            #expect(sawPending)
            #expect(confirmed?.items.map(\.message.text) == ["first", "second"])
            #expect(confirmed?.items.contains { $0.isPending } == false)
        }
    }
}
