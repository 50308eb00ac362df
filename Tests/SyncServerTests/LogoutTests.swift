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
/// on another process — which get no push afterwards; their connections are closed, so their clients reconnect at
/// once and get AUTH_KEY_UNREGISTERED on their next call.
@Suite(.timeLimit(.minutes(2)))
struct LogoutTests {
    /// Alice's key on a second connection (a second session of the same login).
    static func secondSession(of client: TestClient, port: Int, harness: ServerHarness) async throws -> TestClient {
        try await TestClient(port: port, publicKey: harness.server.keys.rsaKey.publicKey, existingKey: client.connection.key, inspector: checkPeerReferences)
    }

    static func expectLoggedOut(_ session: TestClient, inbox: PushInbox, bob: TestClient, port: Int, harness: ServerHarness) async throws {
        _ = try await send("after the logout", to: try await inputUser(1001, in: bob), from: bob)
        #expect(!(await inbox.wait(for: 1, seconds: 1.5)), "a logged-out session still got a push")
        #expect(!session.connection.isActive, "the logged-out session's connection was left open")
        let reconnected = try await secondSession(of: session, port: port, harness: harness)
        await expectRPCError("AUTH_KEY_UNREGISTERED") { try await reconnected.call(API.functions.updates.GetState()) }
        await reconnected.close()
    }

    @Test func everySessionOfTheKeyOnThisServer() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let elsewhere = try await Self.secondSession(of: alice, port: harness.server.port, harness: harness)
        _ = try await state(of: elsewhere)   // online
        let inbox = PushInbox(elsewhere)
        let bob = try await harness.loggedIn(bobPhone)
        _ = try await alice.call(API.functions.auth.LogOut())
        #expect(alice.connection.isActive, "the session that logged out keeps its connection")
        try await Self.expectLoggedOut(elsewhere, inbox: inbox, bob: bob, port: harness.server.port, harness: harness)
        for client in [alice, elsewhere, bob] { await client.close() }
        try await harness.stop()
    }

    @Test(.enabled(if: TestPostgres.url != nil)) func everySessionOfTheKeyInEveryProcess() async throws {
        let first = try await ServerHarness(backend: .postgres)
        let second = try await SyncServer.start(
            SyncServerConfiguration(port: 0, dataDirectory: first.directory, loginCode: "12345", postgresURL: first.postgresURL,
                                    initialRSAKey: TestServerKey.key),
            logger: Logger(label: "test"))
        let alice = try await first.loggedIn(alicePhone)
        let elsewhere = try await Self.secondSession(of: alice, port: second.port, harness: first)
        _ = try await state(of: elsewhere)   // logged in on the second process too (its cache now says so)
        let inbox = PushInbox(elsewhere)
        let bob = try await first.loggedIn(bobPhone)
        _ = try await alice.call(API.functions.auth.LogOut())
        try await Task.sleep(for: .milliseconds(300))   // the announcement crosses to the second process
        try await Self.expectLoggedOut(elsewhere, inbox: inbox, bob: bob, port: second.port, harness: first)
        for client in [alice, elsewhere, bob] { await client.close() }
        try await second.stop()
        try await first.stop()
    }
}
