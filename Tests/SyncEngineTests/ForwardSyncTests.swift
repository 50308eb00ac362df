import Foundation
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// Forwarding through the Account API: the copies reach both stores through the sequencer, with their `fwd_from`
/// header kept in the stored message.
@Suite(.timeLimit(.minutes(2)))
struct ForwardSyncTests {
    private static func header(_ message: Message) -> API.MessageFwdHeader.MessageFwdHeader? {
        guard case let .message(value)? = try? API.Message.deserialize(message.attributes),
              case let .messageFwdHeader(header)? = value.fwdFrom else { return nil }
        return header
    }

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

            try await alice.forward([original.id.id], from: bobPeer, to: bobPeer)
            #expect(try await TestWorld.eventually {
                try await TestWorld.messages(in: bob.postbox, with: aliceID).contains { Self.header($0)?.fromId == .peerUser(.init(userId: aliceID)) }
            })
            #expect(try await TestWorld.eventually {
                try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).contains { Self.header($0)?.date == original.timestamp }
            })
            for account in [alice, bob] { await account.close() }
        }
    }
}
