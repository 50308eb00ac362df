import Foundation
import Synchronization
import MTProto
import MTProtoNIO
import NIOPosix
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// The client's connection manager against a real two-DC server: a first login that starts on the wrong DC costs two
/// TCP connections and no HTTP request, a request to the other DC carries the login there once, and a restart
/// reuses every stored key.
@Suite(.timeLimit(.minutes(2)))
struct ConnectionManagerTests {
    /// DC 2 at one loopback port.
    static func dc2(_ port: Int) -> DataCenterDirectory {
        .loopback([2: port])
    }

    @Test func aFirstLoginOnTheOtherDataCenterUsesTwoConnections() async throws {
        let harness = try await ServerHarness(dcCount: 2)
        let file = NetworkStateFile(path: harness.directory + "/client-network.json")
        let key = harness.server.keys.rsaKey.publicKey
        // Alice's home is DC 1; the client knows nothing yet and starts on DC 2.
        let manager = ConnectionManager(state: NetworkState(directory: .loopback(harness.server.ports)), file: file, initialDC: 2,
                                        publicKeys: [key], group: MultiThreadedEventLoopGroup.singleton)
        await manager.beginPhase("login")
        guard case let .sentCode(sent) = try await manager.send(API.functions.auth.SendCode(
            phoneNumber: alicePhone, apiId: 1, apiHash: "test", settings: .codeSettings(.init())))
        else { Issue.record("sendCode"); return }
        #expect(await manager.masterDC == 1)   // PHONE_MIGRATE_1 followed in place
        guard case let .authorization(authorization) = try await manager.send(API.functions.auth.SignIn(
            phoneNumber: alicePhone, phoneCodeHash: sent.phoneCodeHash, phoneCode: "12345")),
            case let .user(user) = authorization.user
        else { Issue.record("signIn"); return }
        try await manager.authorized(userID: user.id)
        #expect(await manager.accounting == NetworkAccounting(tcpConnections: 2, httpRequests: 0))

        // DC 2 gets the login once, over the connection already open.
        await manager.beginPhase("use")
        for _ in 0..<2 {
            let users = try await manager.send(API.functions.users.GetUsers(id: [.inputUserSelf(.init())]), dc: 2)
            #expect(users.count == 1)
        }
        #expect(await manager.accounting == NetworkAccounting(tcpConnections: 2, httpRequests: 0, authorizationTransfers: 1))
        #expect(await manager.accountingByPhase == ["login": NetworkAccounting(tcpConnections: 2),
                                                    "use": NetworkAccounting(authorizationTransfers: 1)])
        let saved = try #require(try file.load())
        #expect(saved.masterDC == 1 && saved.keys[1]?.userID == user.id && saved.keys[2]?.userID == user.id)
        await manager.close()

        // After a restart the stored keys are used: no exchange, no transfer, one connection per DC asked for.
        let restarted = ConnectionManager(state: saved, file: file, initialDC: 2, publicKeys: [key],
                                          group: MultiThreadedEventLoopGroup.singleton)
        guard case let .state(state) = try await restarted.send(API.functions.updates.GetState()) else { return }
        #expect(state.pts >= 0)
        _ = try await restarted.send(API.functions.users.GetUsers(id: [.inputUserSelf(.init())]), dc: 2)
        #expect(await restarted.accounting == NetworkAccounting(tcpConnections: 2, httpRequests: 0, authorizationTransfers: 0))
        #expect(try file.load()?.keys == saved.keys)
        await restarted.close()
        try await harness.stop()
    }

    @Test func anAddressThatCannotBeReachedIsMarkedAndTheNextOneUsed() async throws {
        let harness = try await ServerHarness(dcCount: 1)
        let dead = DataCenterAddress(host: "127.0.0.1", port: 1)   // nothing listens on port 1
        let live = DataCenterAddress(host: "127.0.0.1", port: harness.server.port)
        let manager = ConnectionManager(state: NetworkState(directory: DataCenterDirectory(seed: [2: [dead, live]])),
                                        initialDC: 2, publicKeys: [harness.server.keys.rsaKey.publicKey],
                                        group: MultiThreadedEventLoopGroup.singleton)
        guard case .config = try await manager.send(API.functions.help.GetConfig()) else { Issue.record("config"); return }
        #expect(await manager.accounting.tcpConnections == 2)
        #expect(await manager.networkState.directory.address(of: 2) == live)
        await #expect(throws: NetworkError.unknownDataCenter(4)) { try await manager.send(API.functions.help.GetConfig(), dc: 4) }
        await manager.close()
        try await harness.stop()
    }

    /// A login followed by a server restart on the same port: the closed connection is replaced, the request answered,
    /// and the stored key reused (no second exchange).
    @Test func aServerRestartIsSurvivedWithTheStoredKey() async throws {
        let harness = try await ServerHarness()
        let port = harness.server.port
        let manager = try await Self.loggedIn(alicePhone, dc: 2, directory: Self.dc2(port), harness: harness)
        let keyBefore = await manager.networkState.keys[2]
        var sessions = manager.sessionChanges.makeAsyncIterator()
        #expect(await sessions.next() == SessionChange(dc: 2, number: 1))   // the first connection's session
        try await harness.stop(removingData: false)
        let restarted = try await ServerHarness(directory: harness.directory, port: port)
        guard case .state = try await manager.send(API.functions.updates.GetState()) else { Issue.record("state"); return }
        #expect(await sessions.next() == SessionChange(dc: 2, number: 2))   // a new session after the restart: time for a difference

        // Pushes reach the manager's update stream.
        let bob = try await restarted.loggedIn(bobPhone)
        _ = try await send("hello alice", to: try await inputUser(1001, in: bob), from: bob)
        var pushes = manager.updates.makeAsyncIterator()
        let push = try #require(await pushes.next())
        guard case let .updateShortMessage(short) = try API.Updates.deserialize(push) else { Issue.record("push"); return }
        #expect(short.message == "hello alice")
        await bob.close()
        let opened = await manager.accounting.tcpConnections
        #expect(opened == 2)
        #expect(await manager.networkState.keys[2] == keyBefore)
        await manager.close()
        try await restarted.stop()
    }

    /// An address change through `help.getConfig`: only the data center whose address changed reconnects.
    @Test func aConfigChangeRestartsOnlyTheChangedDataCenter() async throws {
        let harness = try await ServerHarness(dcCount: 2)
        let stale = DataCenterDirectory(seed: [
            1: [DataCenterAddress(host: "127.0.0.1", port: harness.server.ports[1] ?? 0)],
            2: [DataCenterAddress(host: "127.0.0.1", port: 1)],   // outdated: nothing listens there
        ])
        let manager = try await Self.loggedIn(alicePhone, dc: 1, directory: stale, harness: harness)
        #expect(try await manager.refreshConfig() == [2])
        _ = try await manager.send(API.functions.users.GetUsers(id: [.inputUserSelf(.init())]), dc: 2)
        _ = try await manager.send(API.functions.updates.GetState())
        #expect(await manager.accounting == NetworkAccounting(tcpConnections: 2, httpRequests: 0, authorizationTransfers: 1))
        await manager.close()
        try await harness.stop()
    }

    /// `FLOOD_WAIT_X` below the limit is slept through and the request answered; above it, it reaches the caller.
    @Test func shortFloodWaitsAreSleptThroughAndLongOnesSurfaced() async throws {
        // One send every 5 s: back-to-back sends meet the limit however slowly a loaded machine runs them.
        let harness = try await ServerHarness(sendsPerSecond: 0.2)
        let slept = SleepLog()
        let manager = try await Self.loggedIn(alicePhone, dc: 2, directory: Self.dc2(harness.server.port), harness: harness,
            floodSleepLimit: 10, sleep: { duration in slept.add(duration); try await Task.sleep(for: duration) })
        let bob = API.InputPeer.inputPeerUser(.init(userId: 1002, accessHash: try await Self.accessHash("bob", via: manager)))
        for index in 0..<2 {
            _ = try await manager.send(API.functions.messages.SendMessage(peer: bob, message: "m\(index)", randomId: Int64(index + 1)))
        }
        #expect(slept.durations.contains { $0 >= .seconds(1) })

        let impatient = try await Self.loggedIn(alicePhone, dc: 2, directory: Self.dc2(harness.server.port), harness: harness, floodSleepLimit: 0)
        // Back-to-back sends: one of them is over the rate (the bucket may have refilled for the first).
        var surfaced = false
        for index in 0..<3 where !surfaced {
            do {
                _ = try await impatient.send(API.functions.messages.SendMessage(peer: bob, message: "x", randomId: Int64(10 + index)))
            } catch let MTProtoClientError.rpc(error) where error.floodWaitSeconds != nil {
                surfaced = true
            }
        }
        #expect(surfaced)
        await manager.close()
        await impatient.close()
        try await harness.stop()
    }

    /// A server that lost its keys answers −404: the stored key is forgotten, a new one made, the request answered.
    /// A key that is logged out answers `AUTH_KEY_UNREGISTERED`: the stored login is cleared.
    @Test func unknownAndUnregisteredKeysAreHandled() async throws {
        let harness = try await ServerHarness()
        let port = harness.server.port
        let manager = try await Self.loggedIn(alicePhone, dc: 2, directory: Self.dc2(port), harness: harness)
        let oldKey = await manager.networkState.keys[2]?.authKey
        // The next server keeps the RSA key (clients know it) but none of the auth keys.
        let directory = ServerKeysTests.temporaryDirectory()
        try ServerKeys.install(harness.server.keys.rsaKey, inDirectory: directory)
        try await harness.stop()
        let fresh = try await ServerHarness(directory: directory, port: port)
        guard case .config = try await manager.send(API.functions.help.GetConfig()) else { Issue.record("config"); return }
        let newKey = await manager.networkState.keys[2]
        #expect(newKey != nil && newKey?.authKey != oldKey && newKey?.userID == nil)

        let again = try await Self.loggedIn(alicePhone, dc: 2, directory: Self.dc2(port), harness: fresh)
        _ = try await again.send(API.functions.auth.LogOut())
        await #expect { _ = try await again.send(API.functions.updates.GetState()) } throws: { "\($0)".contains("AUTH_KEY_UNREGISTERED") }
        #expect(await again.networkState.keys[2]?.userID == nil)
        await manager.close()
        await again.close()
        try await fresh.stop()
    }

    /// MTProxy connections with a plain 16-byte secret, a `dd` secret and an `ee` (fake-TLS, domain example.com)
    /// secret, through a server that accepts only connections using that secret.
    @Test(arguments: ["00112233445566778899aabbccddeeff", "dd00112233445566778899aabbccddeeff",
                      "ee00112233445566778899aabbccddeeff6578616d706c652e636f6d"])
    func proxiesWithEachSecretType(hexSecret: String) async throws {
        let proxy = try MTProxy(host: "127.0.0.1", port: 0, hexSecret: hexSecret)
        let harness = try await ServerHarness(secret: proxy.secret)
        let through = try MTProxy(host: "127.0.0.1", port: harness.server.port, hexSecret: hexSecret)
        let manager = ConnectionManager(state: NetworkState(directory: DataCenterDirectory()), initialDC: 2,
                                        publicKeys: [harness.server.keys.rsaKey.publicKey],
                                        group: MultiThreadedEventLoopGroup.singleton, proxy: through)
        guard case let .config(config) = try await manager.send(API.functions.help.GetConfig()) else { Issue.record("config"); return }
        #expect(config.thisDc == 2)
        #expect(await manager.accounting.tcpConnections == 1)
        await manager.close()

        // Without the proxy's secret the server takes nothing.
        let direct = ConnectionManager(state: NetworkState(directory: Self.dc2(harness.server.port)), initialDC: 2,
            publicKeys: [harness.server.keys.rsaKey.publicKey], group: MultiThreadedEventLoopGroup.singleton)
        await #expect(throws: (any Error).self) { _ = try await direct.send(API.functions.help.GetConfig()) }
        await direct.close()
        // Nor with another key of the same kind.
        var otherSecret = proxy.secret
        otherSecret[1] ^= 0xff
        let wrong = ConnectionManager(state: NetworkState(directory: DataCenterDirectory()), initialDC: 2,
                                      publicKeys: [harness.server.keys.rsaKey.publicKey], group: MultiThreadedEventLoopGroup.singleton,
                                      proxy: try MTProxy(host: "127.0.0.1", port: harness.server.port, secret: otherSecret))
        await #expect(throws: (any Error).self) { _ = try await wrong.send(API.functions.help.GetConfig()) }
        await wrong.close()
        try await harness.stop()
    }

    @Test func malformedProxySecretsAreRefused() {
        for hex in ["0011", "ee00112233445566778899aabbccddeeff", "dd00112233445566778899aabbccdd", "zz"] {
            #expect(throws: NetworkError.self) { try MTProxy(host: "127.0.0.1", port: 443, hexSecret: hex) }
        }
    }

    /// The connection is cut after a send reached the server and before its answer came back: the manager reconnects
    /// and sends it again (same random_id), the server answers with the first result, and the message exists once.
    @Test func aRequestCutMidwayIsResentOnceAndAnsweredOnce() async throws {
        let harness = try await ServerHarness()
        let relay = try await CuttingRelay(to: harness.server.port)
        let manager = try await Self.loggedIn(alicePhone, dc: 2, directory: Self.dc2(relay.port), harness: harness)
        let bob = API.InputPeer.inputPeerUser(.init(userId: 1002, accessHash: try await Self.accessHash("bob", via: manager)))
        relay.cutNextAnswer()
        guard case let .updateShortSentMessage(sent) = try await manager.send(API.functions.messages.SendMessage(
            peer: bob, message: "only once", randomId: 777))
        else { Issue.record("send"); return }
        #expect(await manager.accounting.tcpConnections == 2)   // the cut connection and its replacement
        guard case let .state(state) = try await manager.send(API.functions.updates.GetState()) else { return }
        #expect(state.pts == sent.pts && sent.pts == 1)           // one message in Alice's box
        let bobClient = try await harness.loggedIn(bobPhone)
        guard case let .messages(history) = try await bobClient.call(API.functions.messages.GetHistory(
            peer: try await inputUser(1001, in: bobClient), offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0))
        else { Issue.record("history"); return }
        #expect(history.messages.count == 1)
        await bobClient.close()
        await manager.close()
        try await relay.close()
        try await harness.stop()
    }

    /// Every connection pings with `ping_delay_disconnect` and counts the pongs.
    @Test func connectionsAreKeptAliveWithPings() async throws {
        let harness = try await ServerHarness()
        let manager = ConnectionManager(state: NetworkState(directory: Self.dc2(harness.server.port)), initialDC: 2,
                                        publicKeys: [harness.server.keys.rsaKey.publicKey],
                                        group: MultiThreadedEventLoopGroup.singleton, keepalive: ConnectionKeeperTiming(keepaliveInterval: 0.02))
        _ = try await manager.send(API.functions.help.GetConfig())
        for _ in 0..<500 where await manager.accounting.pongs < 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await manager.accounting.pongs >= 3)
        #expect(await manager.accounting.tcpConnections == 1)
        await manager.close()
        try await harness.stop()
    }

    /// A data center none of whose addresses answer is tried again after growing waits, then reported unreachable.
    @Test func anUnreachableDataCenterIsRetriedWithGrowingWaits() async throws {
        let slept = SleepLog()
        let manager = ConnectionManager(state: NetworkState(directory: Self.dc2(1)), initialDC: 2, publicKeys: [],
                                        group: MultiThreadedEventLoopGroup.singleton,
                                        environment: SyncEnvironment.live.waiting { duration in slept.add(duration) })
        await #expect { _ = try await manager.send(API.functions.help.GetConfig()) } throws: { error in
            if case .unreachable(dc: 2, _)? = error as? NetworkError { true } else { false }
        }
        #expect(await manager.accounting.tcpConnections == ConnectionManager.transientAttempts)
        let waits = slept.durations
        #expect(waits.count == ConnectionManager.transientAttempts - 1)
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $0 < $1 })   // each wait longer than the one before
        await manager.close()
    }

    /// Download requests go to up to four workers beside the main connection, all on the data center's one key and
    /// without pushes (`invokeWithoutUpdates`); the workers are reused once open.
    @Test func downloadsUseAtMostFourWorkersOnTheSameKey() async throws {
        let harness = try await ServerHarness()
        let manager = try await Self.loggedIn(alicePhone, dc: 2, directory: Self.dc2(harness.server.port), harness: harness)
        let key = await manager.networkState.keys[2]
        for _ in 0..<3 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let users = try await manager.send(API.functions.users.GetUsers(id: [.inputUserSelf(.init())]), download: true)
                        #expect(users.count == 1)
                    }
                }
                try await group.waitForAll()
            }
        }
        let opened = await manager.accounting.tcpConnections
        #expect(opened >= 2 && opened <= 1 + ConnectionManager.downloadWorkers)
        #expect(await manager.networkState.keys[2] == key)

        // Pushes still reach the update stream (through the main connection; workers ask for none).
        let bob = try await harness.loggedIn(bobPhone)
        _ = try await send("to alice", to: try await inputUser(1001, in: bob), from: bob)
        var pushes = manager.updates.makeAsyncIterator()
        let push = try #require(await pushes.next())
        guard case let .updateShortMessage(short) = try API.Updates.deserialize(push) else { Issue.record("push"); return }
        #expect(short.message == "to alice")
        await bob.close()
        await manager.close()
        try await harness.stop()
    }

    /// After `close`, a request (as one still running in a cancelled task would make) opens no connection and the
    /// state file is not written again: `synccore logout` empties the account's directory right after closing.
    @Test func aClosedManagerConnectsAndWritesNoMore() async throws {
        let harness = try await ServerHarness()
        let file = NetworkStateFile(path: harness.directory + "/client-network.json")
        let manager = ConnectionManager(state: NetworkState(directory: Self.dc2(harness.server.port)), file: file, initialDC: 2,
                                        publicKeys: [harness.server.keys.rsaKey.publicKey], group: MultiThreadedEventLoopGroup.singleton)
        try await manager.logIn(phone: alicePhone)
        #expect(FileManager.default.fileExists(atPath: file.path))
        await manager.close()
        try FileManager.default.removeItem(atPath: file.path)
        let opened = await manager.accounting.tcpConnections
        await #expect(throws: NetworkError.closed) { try await manager.send(API.functions.updates.GetState()) }
        #expect(await manager.accounting.tcpConnections == opened)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        try await harness.stop()
    }

    static func loggedIn(_ phone: String, dc: Int32, directory: DataCenterDirectory, harness: ServerHarness,
                         floodSleepLimit: Int32 = 10,
                         sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) })
        async throws -> ConnectionManager {
        let manager = ConnectionManager(state: NetworkState(directory: directory), initialDC: dc,
                                        publicKeys: [harness.server.keys.rsaKey.publicKey],
                                        group: MultiThreadedEventLoopGroup.singleton, floodSleepLimit: floodSleepLimit,
                                        environment: SyncEnvironment.live.waiting(with: sleep))
        try await manager.logIn(phone: phone)
        return manager
    }

    static func accessHash(_ username: String, via manager: ConnectionManager) async throws -> Int64 {
        guard case let .resolvedPeer(resolved) = try await manager.send(API.functions.contacts.ResolveUsername(username: username)),
              case let .user(found)? = resolved.users.first, let hash = found.accessHash
        else { throw TestClientError.unexpected("resolve \(username)") }
        return hash
    }
}

/// Durations a test's injected sleep was asked for.
final class SleepLog: Sendable {
    private let log = Mutex<[Duration]>([])
    func add(_ duration: Duration) { log.withLock { $0.append(duration) } }
    var durations: [Duration] { log.withLock { $0 } }
}
