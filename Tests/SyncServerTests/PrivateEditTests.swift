import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

@Suite(.timeLimit(.minutes(2)))
struct PrivateEditTests {
    /// An edit changes both copies, one event (pts + 1) in each box; a revoking delete removes both copies, one
    /// event per box with pts_count = the number of ids; the dialog's top message follows.
    @Test(arguments: StorageBackend.all) func editsAndRevokingDeletesMoveBothBoxes(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let toBob = try await inputUser(1002, in: alice)
        // Each push drained before the next send (pushes meeting in Bob's queue would be merged into one).
        let first = try await send("first", to: toBob, from: alice)
        _ = try await bob.nextPush()
        let second = try await send("secnod", to: toBob, from: alice)
        _ = try await bob.nextPush()
        let bobBefore = try await state(of: bob).pts

        guard case let .updates(edited) = try await alice.call(API.functions.messages.EditMessage(
            peer: toBob, id: second.id, message: "second")),
              case let .updateEditMessage(mine)? = edited.updates.first else { Issue.record("edit result"); return }
        #expect(mine.pts == second.pts + 1 && mine.ptsCount == 1)
        guard case let .updates(pushed) = try await bob.nextPush(), case let .updateEditMessage(theirs)? = pushed.updates.first,
              case let .message(message) = theirs.message else { Issue.record("edit push"); return }
        #expect(message.message == "second" && !message.out && theirs.pts == bobBefore + 1)
        await expectRPCError("MESSAGE_NOT_MODIFIED") {
            try await alice.call(API.functions.messages.EditMessage(peer: toBob, id: second.id, message: "second"))
        }
        let bobPeer = try await inputUser(1001, in: bob)
        await expectRPCError("MESSAGE_AUTHOR_REQUIRED") {
            try await bob.call(API.functions.messages.EditMessage(peer: bobPeer, id: message.id, message: "not yours"))
        }

        guard case let .affectedMessages(affected) = try await alice.call(API.functions.messages.DeleteMessages(
            revoke: true, id: [first.id, second.id, 9_999])) else { return }
        #expect(affected.ptsCount == 2 && affected.pts == mine.pts + 2)
        guard case let .updateShort(short) = try await bob.nextPush(), case let .updateDeleteMessages(deleted) = short.update
        else { Issue.record("delete push"); return }
        #expect(deleted.ptsCount == 2 && deleted.pts == bobBefore + 3 && deleted.messages.count == 2)
        guard case let .messages(history) = try await bob.call(API.functions.messages.GetHistory(
            peer: bobPeer, offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0))
        else { Issue.record("history"); return }
        #expect(history.messages.isEmpty)

        // Without revoke only the caller's copy goes.
        let third = try await send("third", to: toBob, from: alice)
        _ = try await bob.nextPush()
        _ = try await alice.call(API.functions.messages.DeleteMessages(id: [third.id]))
        guard case let .messages(kept) = try await bob.call(API.functions.messages.GetHistory(
            peer: bobPeer, offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0))
        else { Issue.record("history"); return }
        #expect(texts(kept.messages) == ["third"])
        await alice.close(); await bob.close()
        try await harness.stop()
    }

    /// Past the per-user send rate, sends are refused with FLOOD_WAIT_X (X ≥ 1); other users are not affected.
    @Test(arguments: StorageBackend.all) func floodWaitAboveTheSendRate(backend: StorageBackend) async throws {
        // One send every 5 s: the second is refused however slowly the first was stored.
        let harness = try await ServerHarness(backend: backend, sendsPerSecond: 0.2)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let toBob = try await inputUser(1002, in: alice)
        var refused: String?
        for index in 1...10 {
            do {
                _ = try await send("burst \(index)", to: toBob, from: alice)
            } catch {
                refused = "\(error)"
                break
            }
        }
        #expect(refused?.contains("FLOOD_WAIT_") == true, "\(refused ?? "no refusal")")   // X ≥ 1 by construction
        _ = try await send("bob is not limited", to: try await inputUser(1001, in: bob), from: bob)
        await alice.close(); await bob.close()
        try await harness.stop()
    }

    @Test func rateLimiterRefillsWithTime() throws {
        let limiter = SendRateLimiter(perSecond: 2)
        try limiter.admit(user: 1, now: 0)
        try limiter.admit(user: 1, now: 0)
        #expect(throws: RPCError(code: 420, message: "FLOOD_WAIT_1")) { try limiter.admit(user: 1, now: 0.1) }
        try limiter.admit(user: 1, now: 0.6)   // one token back after 0.5 s
        try limiter.admit(user: 2, now: 0.6)
        let slow = SendRateLimiter(perSecond: 0.1)
        try slow.admit(user: 1, now: 0)
        #expect(throws: RPCError(code: 420, message: "FLOOD_WAIT_10")) { try slow.admit(user: 1, now: 0) }
    }
}
