import Foundation
import Postbox
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// The account's typed message events over real sockets: a delete from the other side reaches the app as the messages
/// it removed, as they were stored and naming their chat (the server's `updateDeleteMessages` names neither); an edit
/// as the message now reads; a second instance on the directory hears that it took over syncing.
@Suite(.timeLimit(.minutes(3)))
struct MessageEventTests {
    @Test func aDeleteFromTheOtherSideNamesItsChatAndWhatWasDeleted() async throws {
        try await AccountTests.withAliceAndBob("deletion-event") { alice, bob in
            let bobPeer = try await alice.resolve(username: "bob")
            let aliceID = try #require(await alice.user?.id)
            var deletions = bob.deletions.makeAsyncIterator()
            var incoming = bob.incomingMessages.makeAsyncIterator()
            let outgoing = try await alice.send("regrettable", to: bobPeer)
            try await alice.send("fine", to: bobPeer)
            let server = try #require(try await outgoing.sent())
            let first = try #require(await incoming.next())
            #expect(first.text == "regrettable")
            _ = await incoming.next()   // "fine"

            try await alice.delete([server.id], in: bobPeer, revoke: true)
            let removed = try #require(await deletions.next())
            #expect(removed.map(\.text) == ["regrettable"])
            #expect(removed.first?.id == first.id && removed.first?.id.peer == StoreMapping.user(aliceID))
            #expect(try await TestWorld.messages(in: bob.postbox, with: aliceID).map(\.text) == ["fine"])
        }
    }

    @Test func anEditFromTheOtherSideArrivesAsTheMessageNowReads() async throws {
        try await AccountTests.withAliceAndBob("edit-event") { alice, bob in
            let bobPeer = try await alice.resolve(username: "bob")
            let aliceID = try #require(await alice.user?.id)
            var edits = bob.editedMessages.makeAsyncIterator()
            var incoming = bob.incomingMessages.makeAsyncIterator()
            let server = try #require(try await alice.send("teh typo", to: bobPeer).sent())
            let received = try #require(await incoming.next())
            try await alice.edit(server.id, in: bobPeer, text: "the typo")
            let edited = try #require(await edits.next())
            #expect(edited.text == "the typo" && edited.id == received.id && edited.id.peer == StoreMapping.user(aliceID))
        }
    }

    @Test func aSecondInstanceHearsThatItTookOverSyncing() async throws {
        try await AccountTests.withServer("role-event") { server, root in
            let first = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            #expect(await first.isMaster)
            let second = try await Account.open(AccountTests.configuration(root + "/alice", server))
            #expect(await !second.isMaster)
            var events = second.events.makeAsyncIterator()
            await first.close()
            var role: AccountEvent?
            while role == nil, let event = await events.next() {
                if case .roleChanged = event { role = event }
            }
            #expect(role == .roleChanged(isMaster: true))
            #expect(await second.isMaster)
            await second.close()
        }
    }
}
