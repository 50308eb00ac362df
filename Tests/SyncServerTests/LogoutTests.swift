import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOPosix
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Finding 10: `auth.logOut` reaches every session of the key — the others on this server and, with PostgreSQL, those
/// on another process — which get no push afterwards and AUTH_KEY_UNREGISTERED on their next call.
@Suite(.timeLimit(.minutes(2)))
struct LogoutTests {
    /// Alice's key on a second connection (a second session of the same login).
    static func secondSession(of client: TestClient, port: Int, harness: ServerHarness) async throws -> TestClient {
        try await TestClient(port: port, publicKey: harness.server.keys.rsaKey.publicKey, existingKey: client.connection.key)
    }

    static func expectLoggedOut(_ session: TestClient, inbox: PushInbox, bob: TestClient) async throws {
        _ = try await send("after the logout", to: try await inputUser(1001, in: bob), from: bob)
        #expect(!(await inbox.wait(for: 1, seconds: 1.5)), "a logged-out session still got a push")
        await expectRPCError("AUTH_KEY_UNREGISTERED") { try await session.call(API.functions.updates.GetState()) }
    }

    @Test func everySessionOfTheKeyOnThisServer() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let elsewhere = try await Self.secondSession(of: alice, port: harness.server.port, harness: harness)
        _ = try await state(of: elsewhere)   // online
        let inbox = PushInbox(elsewhere)
        let bob = try await harness.loggedIn(bobPhone)
        _ = try await alice.call(API.functions.auth.LogOut())
        try await Self.expectLoggedOut(elsewhere, inbox: inbox, bob: bob)
        for client in [alice, elsewhere, bob] { await client.close() }
        try await harness.stop()
    }

    @Test(.enabled(if: TestPostgres.url != nil)) func everySessionOfTheKeyInEveryProcess() async throws {
        let first = try await ServerHarness(backend: .postgres)
        let second = try await SyncServer.start(
            SyncServerConfiguration(port: 0, dataDirectory: first.directory, loginCode: "12345", postgresURL: first.postgresURL),
            logger: Logger(label: "test"))
        let alice = try await first.loggedIn(alicePhone)
        let elsewhere = try await Self.secondSession(of: alice, port: second.port, harness: first)
        _ = try await state(of: elsewhere)   // logged in on the second process too (its cache now says so)
        let inbox = PushInbox(elsewhere)
        let bob = try await first.loggedIn(bobPhone)
        _ = try await alice.call(API.functions.auth.LogOut())
        try await Task.sleep(for: .milliseconds(300))   // the announcement crosses to the second process
        try await Self.expectLoggedOut(elsewhere, inbox: inbox, bob: bob)
        for client in [alice, elsewhere, bob] { await client.close() }
        try await second.stop()
        try await first.stop()
    }
}
