import Foundation
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// Forwarding through the Account API: the copies reach both stores through the sequencer, with their `fwd_from`
/// header as the stored message's typed `forward` header.
@Suite(.timeLimit(.minutes(2)))
struct ForwardSyncTests {
    @Test func forwardedCopiesReachBothStoresWithTheirHeader() async throws {
        try await AccountTests.withServer("account-forward") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let aliceID = try #require(await alice.user?.id)
            let bobPeer = try await alice.resolve(username: "bob")
            _ = try await alice.send("worth repeating", to: bobPeer)
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: bob.postbox, with: aliceID).count == 1 })
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).count == 1 })
            let original = try #require(try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).first)

            // Offline: a local copy with its header at once; the server's copy replaces it once the network is back.
            await alice.network.setNetworkAvailable(false)
            let locals = try await alice.forward([original.id.id], from: bobPeer, to: bobPeer)
            let local = try #require(try await alice.postbox.read { try $0.message(locals[0]) })
            #expect(local.text == "worth repeating" && local.flags.contains(.unsent)
                    && local.forward == ForwardHeader(author: StoreMapping.user(aliceID), date: original.timestamp))
            await alice.network.setNetworkAvailable(true)
            #expect(try await TestWorld.eventually { try await alice.postbox.read { try $0.message(locals[0]) } == nil })
            #expect(try await TestWorld.eventually {
                try await TestWorld.messages(in: bob.postbox, with: aliceID).contains { $0.forward == ForwardHeader(author: StoreMapping.user(aliceID), date: original.timestamp) }
            })
            #expect(try await TestWorld.eventually {
                try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).contains { $0.forward?.date == original.timestamp && $0.forward?.author == StoreMapping.user(aliceID) }
            })
            for account in [alice, bob] { await account.close() }
        }
    }
}
