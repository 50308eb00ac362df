import Foundation
import Logging
import MTProtoNIO
import Postbox
import Synchronization
import SyncServer
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// The account's events as typed sequences, each subscriber getting every event; the operation queue's custom
/// operations and poll completion; and a 100,000-message catch-up through difference slices.
@Suite(.timeLimit(.minutes(5)))
struct AccountEventsTests {
    static func world() async throws -> (root: String, server: SyncServer) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("account-events-\(UUID().uuidString)").path
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true, sendsPerSecond: 0,
            initialRSAKey: TestServerKey.key),
            logger: Logger(label: "test"))
        return (root, server)
    }

    @Test func typedEventsReachEverySubscriber() async throws {
        let (root, server) = try await Self.world()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
        let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
        var incoming = bob.incomingMessages.makeAsyncIterator()
        var typing = bob.typing.makeAsyncIterator()
        var deleted = bob.deletedMessages.makeAsyncIterator()
        var alicesReadMarks = alice.readMarks.makeAsyncIterator()
        var everything = bob.events.makeAsyncIterator()   // a second subscriber sees the same events

        let bobPeer = try await alice.resolve(username: "bob")
        let aliceID = try #require(await alice.user?.id)
        try await alice.send("ping", to: bobPeer)
        let message = try #require(await incoming.next())
        #expect(message.text == "ping" && message.id.peer == StoreMapping.user(aliceID))
        let firstEvent = try #require(await everything.next())
        #expect(firstEvent.incomingMessage == message)

        _ = try await alice.network.send(API.functions.messages.SetTyping(
            peer: .inputPeerUser(.init(userId: bobPeer.id, accessHash: 0x5EED_0001)), action: .sendMessageTypingAction(.init())))
        let typist = try #require(await typing.next())
        #expect(typist.user == aliceID && typist.chat == StoreMapping.user(aliceID))

        try await bob.markRead(message.id.peer, upTo: message.id.id)
        let mark = try #require(await alicesReadMarks.next())
        #expect(mark.outgoing && mark.chat == bobPeer)

        guard case let .messages(history) = try await alice.network.send(API.functions.messages.GetHistory(
            peer: .inputPeerUser(.init(userId: bobPeer.id, accessHash: 0x5EED_0001)), offsetId: 0, offsetDate: 0, addOffset: 0,
            limit: 1, maxId: 0, minId: 0, hash: 0)), case let .message(sent)? = history.messages.first
        else { Issue.record("no history"); return }
        _ = try await alice.network.send(API.functions.messages.DeleteMessages(revoke: true, id: [sent.id]))
        #expect(await deleted.next() == .common(ids: [message.id.id]))

        await alice.close()
        await bob.close()
        try await server.stop()
    }

    /// A custom operation runs after everything queued before it is committed; `synced()` waits for the difference.
    @Test func customOperationsFollowTheQueueAndSyncedWaitsForTheDifference() async throws {
        let world = try await TestWorld.make()
        defer { Task { try? await world.stop() } }
        let manager = try await AccountStateManager.start(postbox: world.bob.postbox, network: world.bob.network, selfID: world.bob.user.id)
        await manager.synced()   // the start's difference is done
        let start = await manager.state.pts
        // Twenty operations that each move the pts by one (what `messages.affected*` answers carry).
        for index in 1...20 { await manager.enqueue(.input(.affected(pts: start + Int32(index), count: 1, channel: nil))) }
        let seen = Mutex<Int32?>(nil)
        try await manager.perform { transaction in
            seen.withLock { $0 = try? transaction.cursor.flatMap(StoreMapping.state(fromCursor:))?.pts }
        }
        #expect(seen.withLock { $0 } == start + 20)
        await manager.stop()
    }

    @Test func aHundredThousandMissedMessagesArriveThroughSlices() async throws {
        var (root, server) = try await Self.world()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
        let bobID = try #require(await bob.user?.id)
        await bob.close()
        // Bob is offline while Alice's 100,000 messages accumulate (written straight into the stopped server's storage).
        var configuration = server.configuration
        try await server.stop()
        let storage = try SQLiteServerStorage(path: root + "/server/server.sqlite")
        try await BulkSeeding.privateMessages(in: storage, from: 1001, to: bobID, count: 100_000, date: 1_700_000_000, perTransaction: 5_000)
        await storage.close()
        configuration.seedDevAccounts = false
        // A new port: the old one may have been taken by another test's connection while the messages were written.
        // Bob's stored network state is pointed at it, as a client learns a moved DC's address.
        configuration.port = 0
        server = try await SyncServer.start(configuration, logger: Logger(label: "test"))
        let networkFile = NetworkStateFile(path: root + "/bob/network.json")
        var network = try #require(try networkFile.load())
        network.directory = .loopback(server.ports)
        try networkFile.save(network)

        bob = try await Account.open(AccountTests.configuration(root + "/bob", server))
        try await bob.synced()
        guard case let .state(truth) = try await bob.network.send(API.functions.updates.GetState()) else { throw AccountError.unsupportedPeer("") }
        let stored = try await TestWorld.messages(in: bob.postbox, with: 1001)
        #expect(stored.count == 100_000 && Set(stored.map(\.id.id)).count == 100_000)
        #expect(stored.first?.text == "message 1" && stored.last?.text == "message 100000")
        #expect(await bob.syncState?.pts == truth.pts)
        await bob.close()
        try await server.stop()
    }
}
