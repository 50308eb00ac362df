import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// `messages.deleteHistory` on both backends: the caller's copies, or with `revoke` both sides'; up to `max_id`; 100
/// per call with `offset` 1 while more are left; channels refused.
@Suite(.timeLimit(.minutes(2)))
struct DeleteHistoryTests {
    private static func affected(_ answer: API.messages.AffectedHistory) -> (pts: Int32, count: Int32, offset: Int32) {
        guard case let .affectedHistory(value) = answer else { return (0, 0, 0) }
        return (value.pts, value.ptsCount, value.offset)
    }

    @Test(arguments: StorageBackend.all) func clearsOneSideOrBothUpToMaxIDInBatches(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let (toBob, toAlice) = (try await inputUser(1002, in: alice), try await inputUser(1001, in: bob))
        for text in ["one", "two", "three"] { _ = try await send(text, to: toBob, from: alice) }
        _ = try await send("four", to: toAlice, from: bob)

        let mine = Self.affected(try await alice.call(API.functions.messages.DeleteHistory(peer: toBob, maxId: 0)))
        #expect(mine.count == 4 && mine.offset == 0)
        #expect(try await historyMessages(alice, in: toBob).isEmpty)
        #expect(try await historyMessages(bob, in: toAlice).count == 4, "without revoke Bob keeps his copies")

        let five = try await send("five", to: toBob, from: alice)
        _ = try await send("six", to: toBob, from: alice)
        let upTo = Self.affected(try await alice.call(API.functions.messages.DeleteHistory(revoke: true, peer: toBob, maxId: five.id)))
        #expect(upTo.count == 1)
        #expect(try await historyMessages(bob, in: toAlice).count == 5, "Bob lost his copy of \"five\" only")
        #expect(try await historyMessages(alice, in: toBob).count == 1)

        for index in 0..<101 { _ = try await send("note \(index)", to: .inputPeerSelf(.init()), from: alice) }
        let first = Self.affected(try await alice.call(API.functions.messages.DeleteHistory(peer: .inputPeerSelf(.init()), maxId: 0)))
        #expect(first.count == 100 && first.offset == 1)
        let rest = Self.affected(try await alice.call(API.functions.messages.DeleteHistory(peer: .inputPeerSelf(.init()), maxId: 0)))
        #expect(rest.count == 1 && rest.offset == 0 && rest.pts == first.pts + 1)

        let lounge = peer(try await inputChannel("lounge", in: alice))
        await expectRPCError("PEER_ID_INVALID") { try await alice.call(API.functions.messages.DeleteHistory(peer: lounge, maxId: 0)) }
        await alice.close(); await bob.close()
        try await harness.stop()
    }
}
