import Foundation
import Postbox
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// A delete from the other side reaches the app as the messages it removed, as they were stored and naming their chat
/// (the server's `updateDeleteMessages` names neither), over real sockets.
@Suite(.timeLimit(.minutes(3)))
struct DeletionEventTests {
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
}
