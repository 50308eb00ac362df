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

/// One account on a device: its store, its network state file and its connections.
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

/// A server with the development accounts and two logged-in devices, Alice's and Bob's (Alice holding Bob's access
/// hash), in a scratch directory.
struct TestWorld {
    static let alicePhone = "+15550001", bobPhone = "+15550002"

    let root: String
    let server: SyncServer
    let alice: Device
    let bob: Device
    /// Bob as Alice addresses him.
    let toBob: API.InputPeer

    static func make(differencePageSize: Int = 1_000, channelTooLongThreshold: Int = 10_000) async throws -> TestWorld {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sync-world-\(UUID().uuidString)").path
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true,
            differencePageSize: differencePageSize, channelTooLongThreshold: channelTooLongThreshold, sendsPerSecond: 0,
            initialRSAKey: TestServerKey.key),
            logger: Logger(label: "test"))
        let alice = try await Device.logIn(alicePhone, server: server, directory: root + "/alice")
        let bob = try await Device.logIn(bobPhone, server: server, directory: root + "/bob")
        guard case let .resolvedPeer(found) = try await alice.network.send(API.functions.contacts.ResolveUsername(username: "bob")),
              case let .user(bobSeen)? = found.users.first else { throw AccountError.unsupportedPeer("bob") }
        return TestWorld(root: root, server: server, alice: alice, bob: bob, toBob: peer(bobSeen))
    }

    /// Closes both devices' connections, stops the server and removes the directory.
    func stop() async throws {
        await alice.network.close()
        await bob.network.close()
        try await server.stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    static func messages(in postbox: Postbox, with peer: Int64) async throws -> [Message] {
        let chat = StoreMapping.user(peer)
        return try await postbox.read { transaction in
            try transaction.allMessages(peer: chat, namespace: 0)
        }
    }

    /// Waits (up to `seconds`) until `condition` holds.
    /// Reads a live view until `condition` holds for a snapshot; that snapshot (nil if the view ended first).
    static func firstSnapshot<Snapshot>(_ updates: inout AsyncThrowingStream<ViewUpdate<Snapshot>, any Error>.Iterator,
                                        _ condition: (Snapshot) -> Bool) async throws -> Snapshot? {
        while let update = try await updates.next() {
            if condition(update.snapshot) { return update.snapshot }
        }
        return nil
    }

    /// The same, on a view just opened.
    static func firstSnapshot<Snapshot>(_ updates: AsyncThrowingStream<ViewUpdate<Snapshot>, any Error>,
                                        _ condition: (Snapshot) -> Bool) async throws -> Snapshot? {
        var iterator = updates.makeAsyncIterator()
        return try await firstSnapshot(&iterator, condition)
    }

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
}
