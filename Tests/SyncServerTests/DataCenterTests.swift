import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Two DCs from one process: accounts live on a home DC, logins and user requests elsewhere are told where to go,
/// and an authorization moves to the other DC once by export/import.
@Suite(.timeLimit(.minutes(2)))
struct DataCenterTests {
    @Test(arguments: StorageBackend.all) func configListsEveryDCWithItsPort(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend, dcCount: 2)
        let client = try await harness.client(dc: 2)
        guard case let .config(config) = try await client.call(API.functions.help.GetConfig()) else { return }
        #expect(config.thisDc == 2)
        let options = config.dcOptions.compactMap { if case let .dcOption(o) = $0 { (o.id, Int(o.port)) } else { nil } }
        #expect(options.map(\.0) == [1, 2])
        #expect(options.map(\.1) == [harness.server.ports[1], harness.server.ports[2]])
        await client.close()
        try await harness.stop()
    }

    /// Behind a load balancer (`--advertise`), clients are told its address: the host, and the port for the first DC
    /// with the next DCs after it.
    @Test func configAdvertisesTheLoadBalancersAddress() async throws {
        var configuration = SyncServerConfiguration(port: 0, dataDirectory: ServerKeysTests.temporaryDirectory(), dcCount: 2,
                                                    initialRSAKey: TestServerKey.key)
        configuration.advertisedHost = "10.0.0.5"
        configuration.advertisedPort = 443
        let server = try await SyncServer.start(configuration, logger: CapturedLog().logger())
        let client = try await TestClient(port: server.ports[2] ?? 0, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        guard case let .config(config) = try await client.call(API.functions.help.GetConfig()) else { return }
        let options = config.dcOptions.compactMap { if case let .dcOption(o) = $0 { "\(o.id) \(o.ipAddress):\(o.port)" } else { nil } }
        #expect(options == ["1 10.0.0.5:443", "2 10.0.0.5:444"])
        await client.close()
        try await server.stop()
    }

    @Test(arguments: StorageBackend.all) func loginsMigrateToTheHomeDCAndAuthorizationsTransferOnce(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend, dcCount: 2)
        // Alice's home is DC 1 (seeded homes go round the DCs: Alice 1, Bob 2, Carol 1).
        let wrongDC = try await harness.client(dc: 2)
        await expectRPCError("PHONE_MIGRATE_1") { try await wrongDC.login(phone: alicePhone) }
        let alice = try await harness.client(dc: 1)
        try await alice.login(phone: alicePhone)
        _ = try await state(of: alice)

        await expectRPCError("DC_ID_INVALID") { try await alice.call(API.functions.auth.ExportAuthorization(dcId: 1)) }
        guard case let .exportedAuthorization(exported) = try await alice.call(API.functions.auth.ExportAuthorization(dcId: 2))
        else { return }
        let forged = try await harness.client(dc: 2)
        await expectRPCError("AUTH_BYTES_INVALID") {
            try await forged.call(API.functions.auth.ImportAuthorization(id: 1002, bytes: exported.bytes))   // not Bob's
        }
        guard case let .authorization(imported) = try await wrongDC.call(API.functions.auth.ImportAuthorization(
            id: exported.id, bytes: exported.bytes)), case let .user(user) = imported.user else { Issue.record("import"); return }
        #expect(user.id == 1001)
        await expectRPCError("AUTH_BYTES_INVALID") {   // once only
            try await forged.call(API.functions.auth.ImportAuthorization(id: exported.id, bytes: exported.bytes))
        }
        // On DC 2 Alice's key is logged in: DC-independent methods work, her messages live on DC 1.
        let me = try await wrongDC.call(API.functions.users.GetUsers(id: [.inputUserSelf(.init())]))
        #expect(me.count == 1)
        await expectRPCError("USER_MIGRATE_1") { try await wrongDC.call(API.functions.updates.GetState()) }

        // Bob lives on DC 2 and gets Alice's message sent through DC 1 live.
        let bob = try await harness.client(dc: 2)
        try await bob.login(phone: bobPhone)
        _ = try await state(of: bob)
        _ = try await send("across DCs", to: try await inputUser(1002, in: alice), from: alice)
        guard case let .updateShortMessage(pushed) = try await bob.nextPush() else { Issue.record("push"); return }
        #expect(pushed.message == "across DCs")

        // A new phone signs up on the DC it asked and lives there.
        let newcomer = try await harness.client(dc: 2)
        guard case let .sentCode(code) = try await newcomer.call(API.functions.auth.SendCode(
            phoneNumber: "+15557777", apiId: 1, apiHash: "x", settings: .codeSettings(.init()))) else { return }
        _ = try await newcomer.call(API.functions.auth.SignIn(phoneNumber: "+15557777", phoneCodeHash: code.phoneCodeHash,
                                                              phoneCode: "12345"))
        _ = try await newcomer.call(API.functions.auth.SignUp(phoneNumber: "+15557777", phoneCodeHash: code.phoneCodeHash,
                                                              firstName: "Dee", lastName: ""))
        _ = try await state(of: newcomer)
        let elsewhere = try await harness.client(dc: 1)
        await expectRPCError("PHONE_MIGRATE_2") { try await elsewhere.login(phone: "+15557777") }
        for client in [wrongDC, alice, forged, bob, newcomer, elsewhere] { await client.close() }
        try await harness.stop()
    }
}
