import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOPosix
import Postbox
import SyncServer
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// The account's state manager against a real `SyncServer` over real sockets, each account with its own Postbox
/// file: messages exchanged live reach the other's store; an account that was offline while thousands of messages
/// accumulated catches up through difference slices after a restart from its store, each message stored once.
@Suite(.timeLimit(.minutes(3)))
struct AccountStateManagerTests {
    @Test func liveMessagesBothWaysThenACatchUpThroughSlicesAfterARestart() async throws {
        let world = try await TestWorld.make(differencePageSize: 1_000)
        let (server, alice, bob, toBob) = (world.server, world.alice, world.bob, world.toBob)
        // Bob learns Alice's access hash the way a client does (by username).
        guard case let .resolvedPeer(foundAlice) = try await bob.network.send(API.functions.contacts.ResolveUsername(username: "alice")),
              case let .user(aliceAsSeenByBob)? = foundAlice.users.first else { Issue.record("resolve alice"); return }

        let aliceAccount = try await AccountStateManager.start(postbox: alice.postbox, network: alice.network, selfID: alice.user.id)
        var bobAccount = try await AccountStateManager.start(postbox: bob.postbox, network: bob.network, selfID: bob.user.id)

        // Live, both ways: a send's result goes through the sender's own sequencer; the push reaches the other's store.
        let hello = API.functions.messages.SendMessage(peer: toBob, message: "hello bob", randomId: 1)
        await aliceAccount.sent(try await alice.network.send(hello), request: hello)
        #expect(try await TestWorld.eventually { try await TestWorld.messages(in: bob.postbox, with: alice.user.id).map(\.text) == ["hello bob"] })
        let reply = API.functions.messages.SendMessage(peer: TestWorld.peer(aliceAsSeenByBob), message: "hi alice", randomId: 2)
        await bobAccount.sent(try await bob.network.send(reply), request: reply)
        #expect(try await TestWorld.eventually {
            try await TestWorld.messages(in: alice.postbox, with: bob.user.id).map(\.text) == ["hello bob", "hi alice"]
        })
        #expect(try await TestWorld.messages(in: bob.postbox, with: alice.user.id).map(\.text) == ["hello bob", "hi alice"])

        // Bob goes offline; Alice sends 2,500 more (8 at a time).
        await bobAccount.stop()
        await bob.network.close()
        let total = 2_500
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for index in stride(from: lane, to: total, by: 8) {
                        _ = try await alice.network.send(API.functions.messages.SendMessage(
                            peer: toBob, message: "offline \(index)", randomId: Int64(1_000 + index)))
                    }
                }
            }
            try await group.waitForAll()
        }

        // Bob restarts from his store: one getDifference, followed through slices of 1,000.
        let (network, postbox) = try await bob.reopened(server: server)
        bobAccount = try await AccountStateManager.start(postbox: postbox, network: network, selfID: bob.user.id)
        guard case let .state(truth) = try await network.send(API.functions.updates.GetState()) else { return }
        #expect(try await TestWorld.eventually(60) { await bobAccount.state.pts == truth.pts })
        let stored = try await TestWorld.messages(in: postbox, with: alice.user.id)
        #expect(stored.count == total + 2)
        #expect(Set(stored.map(\.id)).count == stored.count)
        #expect(Set(stored.map(\.text)).isSuperset(of: (0..<total).map { "offline \($0)" }))
        let cursor = try await postbox.read { try $0.cursor }.flatMap(StoreMapping.state(fromCursor:))
        #expect(cursor?.pts == truth.pts)
        #expect(await bobAccount.committedBatches >= 3)   // at least one per slice

        await bobAccount.stop()
        await aliceAccount.stop()
        await network.close()
        try await world.stop()
    }
}

extension AccountStateManagerTests {
    /// Another writer moves the stored cursor back (a restore from a backup): the next batch is not applied on it;
    /// the manager restarts from the stored cursor, fetches the difference, and ends equal to the server.
    @Test func aCursorMovedUnderTheManagerIsReloadedNotOverwritten() async throws {
        let world = try await TestWorld.make()
        let (alice, bob) = (world.alice, world.bob)
        let bobAccount = try await AccountStateManager.start(postbox: bob.postbox, network: bob.network, selfID: bob.user.id)
        let before = try await Self.threeMessagesThenAnOlderBackup(world, bobAccount)
        _ = try await alice.network.send(API.functions.messages.SendMessage(peer: world.toBob, message: "after", randomId: 99))
        guard case let .state(truth) = try await bob.network.send(API.functions.updates.GetState()) else { return }
        #expect(try await TestWorld.eventually {
            let cursor = try await bob.postbox.read { try $0.cursor }.flatMap(StoreMapping.state(fromCursor:))
            return cursor?.pts == truth.pts
        })
        #expect(truth.pts > before.pts)
        let texts = try await TestWorld.messages(in: bob.postbox, with: alice.user.id).map(\.text)
        #expect(texts == ["m0", "m1", "m2", "after"])   // m1 and m2 re-fetched from the restored pts, each stored once
        await bobAccount.stop()
        try await world.stop()
    }
}

extension AccountStateManagerTests {
    /// The sequencer rebuilt from the store asks for its own difference; an answer to what the sequencer before it
    /// asked, arriving meanwhile, is not taken for it. (CI saw the race: such an answer, asked from the pts before a
    /// restore moved the cursor back, ended the rebuilt sequencer's fetch, and the messages the restored store lacked
    /// were never fetched.) Here the earlier answer is a difference asked at the pts before the restore: no messages, that pts.
    @Test func aDifferenceAskedBeforeTheSequencerWasRebuiltIsNotTakenForItsOwn() async throws {
        let world = try await TestWorld.make()
        let (alice, bob) = (world.alice, world.bob)
        let bobAccount = try await AccountStateManager.start(postbox: bob.postbox, network: bob.network, selfID: bob.user.id)
        let earlier = await bobAccount.sequencerGeneration
        let before = try await Self.threeMessagesThenAnOlderBackup(world, bobAccount)
        let stale = try await bob.network.send(API.functions.updates.GetDifference(pts: before.pts, date: before.date, qts: before.qts))
        if case let .difference(full) = stale { #expect(full.newMessages.isEmpty) }   // (it names the group Bob is in)
        let requests = await bobAccount.differenceRequests
        await bobAccount.recoverFromFailedWrite()
        #expect(await bobAccount.sequencerGeneration == earlier + 1)
        // Once the rebuilt sequencer has asked, the earlier answer arrives before the server's reply to it can.
        let deadline = ContinuousClock.now + .seconds(30)
        while await bobAccount.differenceRequests == requests, ContinuousClock.now < deadline { await Task.yield() }
        await bobAccount.enqueueAnswer(.difference(stale, session: 0), askedUnder: earlier)

        #expect(try await TestWorld.eventually {
            try await TestWorld.messages(in: bob.postbox, with: alice.user.id).map(\.text) == ["m0", "m1", "m2"]
        })
        let cursor = try await bob.postbox.read { try $0.cursor }.flatMap(StoreMapping.state(fromCursor:))
        #expect(cursor?.pts == before.pts)
        await bobAccount.stop()
        try await world.stop()
    }
}

extension AccountStateManagerTests {
    /// Alice sends Bob m0, m1 and m2; once his manager stored them, an older backup is restored behind its back: the
    /// cursor goes back to just after m0, and m1 and m2 leave the store. Only a manager that notices re-fetches them.
    /// Returns the state the manager had stored before the restore.
    static func threeMessagesThenAnOlderBackup(_ world: TestWorld, _ manager: AccountStateManager) async throws -> SyncState {
        let (alice, bob) = (world.alice, world.bob)
        for index in 0..<3 {
            _ = try await alice.network.send(API.functions.messages.SendMessage(peer: world.toBob, message: "m\(index)",
                                                                                randomId: Int64(index + 1)))
        }
        #expect(try await TestWorld.eventually { try await TestWorld.messages(in: bob.postbox, with: alice.user.id).count == 3 })
        await manager.synced()
        let before = await manager.state
        let restored = SyncState(pts: before.pts - 2, qts: before.qts, seq: before.seq, date: before.date, channels: before.channels)
        let lost = try await TestWorld.messages(in: bob.postbox, with: alice.user.id).filter { $0.text != "m0" }.map(\.id)
        _ = try await bob.postbox.transaction { transaction in
            try transaction.removeMessages(lost)
            try transaction.setCursor(StoreMapping.cursor(restored))
        }
        #expect(try await TestWorld.messages(in: bob.postbox, with: alice.user.id).map(\.text) == ["m0"])
        return before
    }
}
