import Foundation
import Logging
import MTProto
import MTProtoNIO
import Postbox
import SyncServer
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// An open, logged-in account that the app leaves alone stays in sync through what happens to its connection: the
/// server restarting, a path that goes silent without a FIN, a logout elsewhere. All over real sockets.
@Suite(.timeLimit(.minutes(3)))
struct AlwaysConnectedTests {
    static func start(_ root: String, port: Int = 0) async throws -> SyncServer {
        try await SyncServer.start(SyncServerConfiguration(
            port: port, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true, sendsPerSecond: 0,
            initialRSAKey: TestServerKey.key),
            logger: Logger(label: "test"))
    }

    static func logIn(_ phone: String, _ directory: String, _ server: SyncServer, port: Int? = nil,
                      keepalive: ConnectionKeeperTiming = ConnectionKeeperTiming()) async throws -> Account {
        let account = try await Account.open(Account.Configuration(
            directory: directory, addresses: .loopback([2: port ?? server.port]), publicKeys: [server.keys.rsaKey.publicKey],
            keepalive: keepalive))
        let hash = try await account.requestCode(phone: phone)
        try await account.signIn(phone: phone, code: "12345", codeHash: hash)
        return account
    }

    static func texts(_ account: Account, from peer: Int64) async throws -> [String] {
        try await TestWorld.messages(in: account.postbox, with: peer).map(\.text)
    }

    @Test func anIdleAccountReceivesWhatIsSentAfterEachOfFiveServerRestarts() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("always-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var server = try await Self.start(root)
        let port = server.port
        let alice = try await Self.logIn(TestWorld.alicePhone, root + "/alice", server)
        let bob = try await Self.logIn(TestWorld.bobPhone, root + "/bob", server)
        let bobPeer = try await alice.resolve(username: "bob")
        let aliceID = try #require(await alice.user?.id)
        try await bob.synced()
        var expected: [String] = []
        for restart in 1...5 {
            try await server.stop()
            server = try await Self.start(root, port: port)
            // Bob's app does nothing from here on: only his account's own connection keeping can bring this in.
            let text = "sent after restart \(restart)"
            try await alice.send(text, to: bobPeer)
            expected.append(text)
            let arrived = try await TestWorld.eventually(20) { try await Self.texts(bob, from: aliceID) == expected }
            let has = try await Self.texts(bob, from: aliceID)
            #expect(arrived, "restart \(restart): Bob has \(has)")
            guard arrived else { break }
        }
        #expect(await bob.network.accounting.tcpConnections >= 6)
        // One difference per session: the login's, then one per reconnect (never two for one session).
        let differences = await bob.differenceRequests
        #expect(differences >= 6 && differences <= 7, "\(differences) differences for 6 sessions")
        await alice.close()
        await bob.close()

        // Reopened with a stored state: exactly one difference, not one for the state and one for the new session.
        try await server.stop()
        server = try await Self.start(root, port: port)
        let reopened = try await Account.open(Account.Configuration(
            directory: root + "/bob", addresses: .loopback([2: port]), publicKeys: [server.keys.rsaKey.publicKey]))
        try await reopened.synced()
        try await Task.sleep(for: .milliseconds(300))
        try await reopened.synced()
        #expect(await reopened.differenceRequests == 1)
        await reopened.close()
        try await server.stop()
    }

    @Test func aPathThatGoesSilentWithoutAFinIsNoticedByTheKeepaliveAndReplaced() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("blackhole-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await Self.start(root)
        let relay = try await FaultyRelay.start(targetPort: server.port, seed: 1, rawBytes: true)
        let alice = try await Self.logIn(TestWorld.alicePhone, root + "/alice", server)
        let bob = try await Self.logIn(TestWorld.bobPhone, root + "/bob", server, port: relay.port,
                                       keepalive: ConnectionKeeperTiming(keepaliveInterval: 1, pongTimeout: 2))
        let bobPeer = try await alice.resolve(username: "bob")
        let aliceID = try #require(await alice.user?.id)
        try await bob.synced()
        let before = await bob.network.accounting.tcpConnections
        relay.blackholeAll()   // Bob's connection: both ways silent from now on, no FIN, no RST
        try await alice.send("into the void", to: bobPeer)
        let started = ContinuousClock.now
        #expect(try await TestWorld.eventually(20) { try await Self.texts(bob, from: aliceID) == ["into the void"] })
        let took = ContinuousClock.now - started
        #expect(await bob.network.accounting.tcpConnections > before)
        #expect(took < .seconds(10), "noticed after \(took)")
        await alice.close()
        await bob.close()
        await relay.stop()
        try await server.stop()
    }

    @Test func aLogoutElsewhereReachesTheAppAndTheAppsOwnLogoutToo() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("logout-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await Self.start(root)
        let bob = try await Self.logIn(TestWorld.bobPhone, root + "/bob", server)
        try await bob.synced()
        var events = bob.events.makeAsyncIterator()
        // Another process on the same directory (same key) logs out: Bob's connection is closed by the server, the
        // reconnect's difference meets AUTH_KEY_UNREGISTERED, and the app hears why.
        let file = NetworkStateFile(path: root + "/bob/network.json")
        let other = ConnectionManager(state: try #require(try file.load()), initialDC: 2,
                                      publicKeys: [server.keys.rsaKey.publicKey], group: .singletonMultiThreadedEventLoopGroup)
        _ = try await other.send(API.functions.auth.LogOut())
        await other.close()
        var reason: LogoutReason?
        while reason == nil, let event = await events.next() {
            if case let .loggedOut(why) = event { reason = why }
        }
        #expect(reason == .revoked("AUTH_KEY_UNREGISTERED"))
        #expect(await bob.isLoggedIn == false)
        #expect(try await bob.postbox.read { try $0.preference(Account.selfKey) } == nil)
        #expect(await bob.network.networkState.keys[2]?.userID == nil)
        await bob.close()

        // Logged in again (the store kept), then the app's own logout with a wipe.
        let again = try await Account.open(Account.Configuration(
            directory: root + "/bob", addresses: .loopback([2: server.port]), publicKeys: [server.keys.rsaKey.publicKey],
            wipeStoreOnLogout: true))
        #expect(await again.isLoggedIn == false)
        let hash = try await again.requestCode(phone: TestWorld.bobPhone)
        try await again.signIn(phone: TestWorld.bobPhone, code: "12345", codeHash: hash)
        try await again.synced()
        var later = again.events.makeAsyncIterator()
        await again.logOut()
        var own: LogoutReason?
        while own == nil, let event = await later.next() {
            if case let .loggedOut(why) = event { own = why }
        }
        #expect(own == .requested)
        #expect(try await again.postbox.read { try $0.cursor } == nil)
        await #expect(throws: AccountError.notLoggedIn) { try await again.send("after logout", to: StoreMapping.user(1)) }
        await again.close()
        try await server.stop()
    }
}
