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
    static let alicePhone = "+15550001", bobPhone = "+15550002"

    /// One account: its store, its network state file and its connections.
    struct Device {
        let directory: String
        let postbox: Postbox
        let network: ConnectionManager
        let user: API.User.User

        static func logIn(_ phone: String, server: SyncServer, directory: String) async throws -> Device {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let file = NetworkStateFile(path: directory + "/network.json")
            let network = ConnectionManager(state: try file.load() ?? NetworkState(directory: .loopback(server.ports)), file: file,
                                            initialDC: 2, publicKeys: [server.keys.rsaKey.publicKey],
                                            group: MultiThreadedEventLoopGroup.singleton)
            let user = try await network.logIn(phone: phone)
            return Device(directory: directory, postbox: try Postbox.open(at: directory + "/store.sqlite"), network: network, user: user)
        }

        /// The same device after a restart: the stored network state (keys, login) and the same store.
        func reopened(server: SyncServer) async throws -> (ConnectionManager, Postbox) {
            let file = NetworkStateFile(path: directory + "/network.json")
            let state = try #require(try file.load())
            return (ConnectionManager(state: state, file: file, initialDC: 2, publicKeys: [server.keys.rsaKey.publicKey],
                                      group: MultiThreadedEventLoopGroup.singleton),
                    try Postbox.open(at: directory + "/store.sqlite"))
        }
    }

    static func messages(in postbox: Postbox, with peer: Int64) async throws -> [Message] {
        let chat = StoreMapping.user(peer)
        return try await postbox.read { transaction in
            try transaction.messages(peer: chat, namespace: 0, from: MessageIndex(id: MessageID(peer: chat, namespace: 0, id: 0), timestamp: 0),
                                     direction: .newer, limit: 100_000)
        }
    }

    /// Waits (up to `seconds`) until `condition` holds.
    static func eventually(_ seconds: Double = 30, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    static func peer(_ user: API.User.User) -> API.InputPeer {
        .inputPeerUser(.init(userId: user.id, accessHash: user.accessHash ?? 0))
    }

    @Test func liveMessagesBothWaysThenACatchUpThroughSlicesAfterARestart() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("account-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true, differencePageSize: 1_000,
            sendsPerSecond: 0), logger: Logger(label: "test"))
        let alice = try await Device.logIn(Self.alicePhone, server: server, directory: root + "/alice")
        let bob = try await Device.logIn(Self.bobPhone, server: server, directory: root + "/bob")
        // Each learns the other's access hash the way a client does (by username).
        guard case let .resolvedPeer(found) = try await alice.network.send(API.functions.contacts.ResolveUsername(username: "bob")),
              case let .user(bobAsSeenByAlice)? = found.users.first else { Issue.record("resolve bob"); return }
        guard case let .resolvedPeer(foundAlice) = try await bob.network.send(API.functions.contacts.ResolveUsername(username: "alice")),
              case let .user(aliceAsSeenByBob)? = foundAlice.users.first else { Issue.record("resolve alice"); return }

        let aliceAccount = try await AccountStateManager.start(postbox: alice.postbox, network: alice.network, selfID: alice.user.id)
        var bobAccount = try await AccountStateManager.start(postbox: bob.postbox, network: bob.network, selfID: bob.user.id)

        // Live, both ways: a send's result goes through the sender's own sequencer; the push reaches the other's store.
        let hello = API.functions.messages.SendMessage(peer: Self.peer(bobAsSeenByAlice), message: "hello bob", randomId: 1)
        await aliceAccount.sent(try await alice.network.send(hello), request: hello)
        #expect(try await Self.eventually { try await Self.messages(in: bob.postbox, with: alice.user.id).map(\.text) == ["hello bob"] })
        let reply = API.functions.messages.SendMessage(peer: Self.peer(aliceAsSeenByBob), message: "hi alice", randomId: 2)
        await bobAccount.sent(try await bob.network.send(reply), request: reply)
        #expect(try await Self.eventually {
            try await Self.messages(in: alice.postbox, with: bob.user.id).map(\.text) == ["hello bob", "hi alice"]
        })
        #expect(try await Self.messages(in: bob.postbox, with: alice.user.id).map(\.text) == ["hello bob", "hi alice"])

        // Bob goes offline; Alice sends 2,500 more (8 at a time).
        await bobAccount.stop()
        await bob.network.close()
        let total = 2_500
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for index in stride(from: lane, to: total, by: 8) {
                        _ = try await alice.network.send(API.functions.messages.SendMessage(
                            peer: Self.peer(bobAsSeenByAlice), message: "offline \(index)", randomId: Int64(1_000 + index)))
                    }
                }
            }
            try await group.waitForAll()
        }

        // Bob restarts from his store: one getDifference, followed through slices of 1,000.
        let (network, postbox) = try await bob.reopened(server: server)
        bobAccount = try await AccountStateManager.start(postbox: postbox, network: network, selfID: bob.user.id)
        guard case let .state(truth) = try await network.send(API.functions.updates.GetState()) else { return }
        #expect(try await Self.eventually(60) { await bobAccount.state.pts == truth.pts })
        let stored = try await Self.messages(in: postbox, with: alice.user.id)
        #expect(stored.count == total + 2)
        #expect(Set(stored.map(\.id)).count == stored.count)
        #expect(Set(stored.map(\.text)).isSuperset(of: (0..<total).map { "offline \($0)" }))
        let cursor = try await postbox.read { try $0.cursor }.flatMap(StoreMapping.state(fromCursor:))
        #expect(cursor?.pts == truth.pts)
        #expect(await bobAccount.committedBatches >= 3)   // at least one per slice

        await bobAccount.stop()
        await aliceAccount.stop()
        await network.close()
        await alice.network.close()
        try await server.stop()
    }
}

extension AccountStateManagerTests {
    /// Another writer moves the stored cursor back (a restore from a backup): the next batch is not applied on it;
    /// the manager restarts from the stored cursor, fetches the difference, and ends equal to the server.
    @Test func aCursorMovedUnderTheManagerIsReloadedNotOverwritten() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("account-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true, sendsPerSecond: 0),
            logger: Logger(label: "test"))
        let alice = try await Device.logIn(Self.alicePhone, server: server, directory: root + "/alice")
        let bob = try await Device.logIn(Self.bobPhone, server: server, directory: root + "/bob")
        guard case let .resolvedPeer(found) = try await alice.network.send(API.functions.contacts.ResolveUsername(username: "bob")),
              case let .user(bobSeen)? = found.users.first else { Issue.record("resolve bob"); return }
        let bobAccount = try await AccountStateManager.start(postbox: bob.postbox, network: bob.network, selfID: bob.user.id)
        for index in 0..<3 {
            _ = try await alice.network.send(API.functions.messages.SendMessage(peer: Self.peer(bobSeen), message: "m\(index)",
                                                                                randomId: Int64(index + 1)))
        }
        #expect(try await Self.eventually { try await Self.messages(in: bob.postbox, with: alice.user.id).count == 3 })
        let before = await bobAccount.state
        // The restore of an older backup, behind the manager's back: the cursor goes back to just after m0, and m1
        // and m2 are not in the store. Only a manager that notices re-fetches them.
        let restored = SyncState(pts: before.pts - 2, qts: before.qts, seq: before.seq, date: before.date, channels: before.channels)
        let stale = try await Self.messages(in: bob.postbox, with: alice.user.id).filter { $0.text != "m0" }.map(\.id)
        _ = try await bob.postbox.transaction { transaction in
            try transaction.removeMessages(stale)
            try transaction.setCursor(StoreMapping.cursor(restored))
        }
        #expect(try await Self.messages(in: bob.postbox, with: alice.user.id).map(\.text) == ["m0"])
        _ = try await alice.network.send(API.functions.messages.SendMessage(peer: Self.peer(bobSeen), message: "after", randomId: 99))
        guard case let .state(truth) = try await bob.network.send(API.functions.updates.GetState()) else { return }
        #expect(try await Self.eventually {
            let cursor = try await bob.postbox.read { try $0.cursor }.flatMap(StoreMapping.state(fromCursor:))
            return cursor?.pts == truth.pts
        })
        #expect(truth.pts > before.pts)
        let texts = try await Self.messages(in: bob.postbox, with: alice.user.id).map(\.text)
        #expect(texts == ["m0", "m1", "m2", "after"])   // m1 and m2 re-fetched from the restored pts, each stored once
        await bobAccount.stop()
        await alice.network.close()
        await bob.network.close()
        try await server.stop()
    }
}
