import Foundation
import Logging
import MTProtoNIO
import Postbox
import Synchronization
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// The outbox against a real server: a send shows at once as a local unsent message, survives the network being away
/// and a restart, and is replaced by the server's copy in the transaction that removes its log entry; a send the
/// server refuses for good is marked failed and not retried.
@Suite(.timeLimit(.minutes(2)))
struct OutboxTests {
    static func outbox(_ postbox: Postbox, peer: PeerID) async throws -> (local: [Message], pending: Int) {
        try await postbox.read { transaction in
            (try transaction.messages(peer: peer, namespace: OutboxEntry.localMessages,
                                      from: MessageIndex(id: MessageID(peer: peer, namespace: 1, id: 0), timestamp: 0), direction: .newer, limit: 100),
             try transaction.operations(tag: OutboxEntry.sendTag).count)
        }
    }

    @Test func sendsWaitForTheNetworkAndReplaceTheirLocalCopies() async throws {
        let world = try await TestWorld.make()
        let aliceAccount = try await AccountStateManager.start(postbox: world.alice.postbox, network: world.alice.network,
                                                               selfID: world.alice.user.id)
        let bobAccount = try await AccountStateManager.start(postbox: world.bob.postbox, network: world.bob.network,
                                                             selfID: world.bob.user.id)
        let chat = StoreMapping.user(world.bob.user.id)
        await world.alice.network.setNetworkAvailable(false)
        for text in ["one", "two", "three"] { try await aliceAccount.send(text, to: world.toBob) }
        let queued = try await Self.outbox(world.alice.postbox, peer: chat)
        #expect(queued.local.map(\.text) == ["one", "two", "three"] && queued.local.allSatisfy { $0.flags.contains(.unsent) })
        #expect(queued.pending == 3)

        await world.alice.network.setNetworkAvailable(true)
        #expect(try await TestWorld.eventually {
            try await TestWorld.messages(in: world.alice.postbox, with: world.bob.user.id).map(\.text) == ["one", "two", "three"]
        })
        let done = try await Self.outbox(world.alice.postbox, peer: chat)
        #expect(done.local.isEmpty && done.pending == 0)
        let stored = try await TestWorld.messages(in: world.alice.postbox, with: world.bob.user.id)
        #expect(stored.allSatisfy { !$0.flags.contains(.incoming) && !$0.flags.contains(.unsent) })
        #expect(try await TestWorld.eventually {
            try await TestWorld.messages(in: world.bob.postbox, with: world.alice.user.id).map(\.text) == ["one", "two", "three"]
        })
        await aliceAccount.stop()
        await bobAccount.stop()
        try await world.stop()
    }

    @Test func queuedSendsCompleteAfterARestart() async throws {
        let world = try await TestWorld.make()
        var aliceAccount = try await AccountStateManager.start(postbox: world.alice.postbox, network: world.alice.network,
                                                               selfID: world.alice.user.id)
        await world.alice.network.setNetworkAvailable(false)
        try await aliceAccount.send("before the crash", to: world.toBob)
        try await aliceAccount.send("and another", to: world.toBob)
        await aliceAccount.stop()
        await world.alice.network.close()

        let (network, postbox) = try await world.alice.reopened(server: world.server)
        aliceAccount = try await AccountStateManager.start(postbox: postbox, network: network, selfID: world.alice.user.id)
        #expect(try await TestWorld.eventually {
            try await TestWorld.messages(in: postbox, with: world.bob.user.id).map(\.text) == ["before the crash", "and another"]
        })
        #expect(try await Self.outbox(postbox, peer: StoreMapping.user(world.bob.user.id)).pending == 0)
        guard case let .messages(history) = try await world.bob.network.send(API.functions.messages.GetHistory(
            peer: .inputPeerUser(.init(userId: world.alice.user.id, accessHash: world.alice.user.accessHash ?? 0)),
            offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0)) else {
            Issue.record("history"); return
        }
        #expect(history.messages.count == 2)   // each sent once
        await aliceAccount.stop()
        await network.close()
        try await world.stop()
    }

    @Test func aSendRefusedForGoodIsMarkedFailed() async throws {
        let world = try await TestWorld.make()
        let aliceAccount = try await AccountStateManager.start(postbox: world.alice.postbox, network: world.alice.network,
                                                               selfID: world.alice.user.id)
        let nobody = API.InputPeer.inputPeerUser(.init(userId: 987_654_321, accessHash: 1))
        let local = try await aliceAccount.send("to nobody", to: nobody)
        #expect(try await TestWorld.eventually {
            let message = try await world.alice.postbox.read { try $0.message(local) }
            return message?.flags.contains(.failed) == true
        })
        #expect(try await Self.outbox(world.alice.postbox, peer: local.peer).pending == 0)
        await aliceAccount.stop()
        try await world.stop()
    }

    /// A send queued offline and confirmed after the reconnect, while Bob's messages moved Alice's box on the server
    /// (so its answer comes while her catch-up runs, and is held for it): a conversation view that shows local and
    /// confirmed copies together never shows it gone (the local copy and the confirmed one swap in one transaction).
    @Test func aConfirmedSendIsNeverShownGone() async throws {
        // Small difference pages: the catch-up after the reconnect takes many round trips, and the send's answer
        // comes back while it runs (the sequencer holds it until the difference ends).
        let world = try await TestWorld.make(differencePageSize: 20)
        let aliceAccount = try await AccountStateManager.start(postbox: world.alice.postbox, network: world.alice.network,
                                                               selfID: world.alice.user.id)
        let chat = StoreMapping.user(world.bob.user.id)
        let conversation = world.alice.postbox.view(CombinedView(
            MessageHistoryView(peer: chat, namespace: StoreMapping.cloudMessages, count: 50),
            MessageHistoryView(peer: chat, namespace: OutboxEntry.localMessages, count: 50)))
        let seen = Mutex<(shown: Bool, goneAfter: Int, snapshots: Int)>((false, 0, 0))
        let watcher = Task {
            for try await update in conversation {
                let texts = (update.snapshot.first.messages + update.snapshot.second.messages).map(\.text)
                seen.withLock { state in
                    state.snapshots += 1
                    if texts.contains("queued") { state.shown = true } else if state.shown { state.goneAfter += 1 }
                }
            }
        }
        guard case let .resolvedPeer(found) = try await world.bob.network.send(API.functions.contacts.ResolveUsername(username: "alice")),
              case let .user(aliceSeen)? = found.users.first else { Issue.record("alice"); return }
        await world.alice.network.setNetworkAvailable(false)
        try await aliceAccount.send("queued", to: world.toBob)
        for index in 1...300 {
            _ = try await world.bob.network.send(API.functions.messages.SendMessage(peer: TestWorld.peer(aliceSeen), message: "from bob \(index)",
                                                                                    randomId: Int64(index)))
        }
        await world.alice.network.setNetworkAvailable(true)
        #expect(try await TestWorld.eventually {
            let stored = try await TestWorld.messages(in: world.alice.postbox, with: world.bob.user.id).map(\.text)
            return stored.contains("queued") && stored.count == 301
        })
        try await Task.sleep(for: .milliseconds(100))   // the view's last snapshots
        watcher.cancel()
        let result = seen.withLock { $0 }
        #expect(result.shown)
        #expect(result.goneAfter == 0, "snapshots without the message after it was shown: \(result.goneAfter) of \(result.snapshots)")
        #expect(try await Self.outbox(world.alice.postbox, peer: chat).local.isEmpty)
        await aliceAccount.stop()
        try await world.stop()
    }
}
