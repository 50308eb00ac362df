import Foundation
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
    static func directory(_ harness: ServerHarness) -> DataCenterDirectory {
        DataCenterDirectory(seed: [
            1: [DataCenterAddress(host: "127.0.0.1", port: harness.server.ports[1] ?? 0)],
            2: [DataCenterAddress(host: "127.0.0.1", port: harness.server.ports[2] ?? 0)],
        ])
    }

    @Test func aFirstLoginOnTheOtherDataCenterUsesTwoConnections() async throws {
        let harness = try await ServerHarness(dcCount: 2)
        let file = NetworkStateFile(path: harness.directory + "/client-network.json")
        let key = harness.server.keys.rsaKey.publicKey
        // Alice's home is DC 1; the client knows nothing yet and starts on DC 2.
        let manager = ConnectionManager(state: NetworkState(directory: Self.directory(harness)), file: file, initialDC: 2,
                                        publicKeys: [key], group: MultiThreadedEventLoopGroup.singleton)
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
        for _ in 0..<2 {
            let users = try await manager.send(API.functions.users.GetUsers(id: [.inputUserSelf(.init())]), dc: 2)
            #expect(users.count == 1)
        }
        #expect(await manager.accounting == NetworkAccounting(tcpConnections: 2, httpRequests: 0, authorizationTransfers: 1))
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
}
