import Foundation
import Logging
import MTProtoNIO
import NIOPosix
import Postbox
import SyncServer
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// An account that is logged in but cannot start syncing yet — its store has no update state (the process stopped
/// between `auth.signIn` and the first `updates.getState`) and the server cannot be reached — still opens, says it
/// is logged in, and starts syncing by itself once the server answers. Before, `open` threw; and a sign-in whose
/// `getState` timed out left an account that said it was logged in and never synced (CI's fault simulation, under
/// full load: "an account never learnt @lounge's pts").
@Suite(.timeLimit(.minutes(2)))
struct AccountStartTests {
    @Test func aStartThatFailsIsRetriedUntilTheServerAnswers() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("account-start-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true, sendsPerSecond: 0,
            initialRSAKey: TestServerKey.key),
            logger: Logger(label: "test"))
        let relay = try await FaultyRelay.start(targetPort: server.port, seed: 1)
        let key = server.keys.rsaKey.publicKey
        let directory = root + "/bob"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

        // Bob's login is recorded (network.json and the store's user) but the store has no update state.
        let login = ConnectionManager(state: NetworkState(directory: .loopback([2: relay.port])),
                                      file: NetworkStateFile(path: directory + "/network.json"), initialDC: 2,
                                      publicKeys: [key], group: MultiThreadedEventLoopGroup.singleton)
        let bobUser = try await login.logIn(phone: TestWorld.bobPhone)
        await login.close()
        do {
            let store = try Postbox.open(at: directory + "/store.sqlite")
            _ = try await store.transaction { try $0.setPreference(Account.selfKey, API.User.user(bobUser).serialized()) }
        }

        relay.setTarget(nil)   // connections are refused from here on
        let timing = SyncTiming(retryBase: 0.05, retryCap: 0.2, connectTimeout: .seconds(1), requestTimeout: .seconds(1))
        let bob = try await Account.open(Account.Configuration(directory: directory, addresses: .loopback([2: relay.port]),
                                                               publicKeys: [key], timing: timing))
        #expect(await bob.isLoggedIn)
        #expect(await bob.syncState == nil)
        try await Task.sleep(for: .milliseconds(300))   // a few retries fail meanwhile
        #expect(await bob.syncState == nil)

        relay.setTarget(server.port)
        #expect(try await TestWorld.eventually(20) { await bob.syncState != nil })
        let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
        let bobPeer = try await alice.resolve(username: "bob")
        try await alice.send("once the server answers", to: bobPeer)
        let aliceID = try #require(await alice.user?.id)
        #expect(try await TestWorld.eventually(20) {
            try await TestWorld.messages(in: bob.postbox, with: aliceID).map(\.text) == ["once the server answers"]
        })
        await alice.close()
        await bob.close()
        await relay.stop()
        try await server.stop()
    }
}
