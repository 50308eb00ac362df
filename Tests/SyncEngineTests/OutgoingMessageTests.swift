import Foundation
import Logging
import Postbox
import SyncServer
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// `Account.send`'s handle against a real server over real sockets: it follows the send to the server's message (which
/// the store then holds in place of the local copy) or to Telegram's refusal, as the `sendSucceeded` / `sendFailed`
/// events say; typing marks set through the account reach the other side as typed actions.
@Suite(.timeLimit(.minutes(3)))
struct OutgoingMessageTests {
    @Test func aSendsHandleGivesTheServersMessage() async throws {
        try await AccountTests.withAliceAndBob("outgoing-sent") { alice, bob in
            let bobPeer = try await alice.resolve(username: "bob")
            var events = alice.events.makeAsyncIterator()
            let outgoing = try await alice.send("which id?", to: bobPeer)
            #expect(outgoing.local.namespace == OutboxEntry.localMessages && outgoing.local.peer == bobPeer)
            let server = try #require(try await outgoing.sent())
            #expect(server.namespace == StoreMapping.cloudMessages && server.peer == bobPeer)
            #expect(outgoing.state == .sent(server))
            // The store holds the server's copy, and the local one is gone, when the handle says sent.
            #expect(try await alice.postbox.read { try $0.message(server) }?.text == "which id?")
            #expect(try await alice.postbox.read { try $0.message(outgoing.local) } == nil)
            var succeeded: AccountEvent?
            while succeeded == nil, let event = await events.next() {
                if case .sendSucceeded = event { succeeded = event }
            }
            #expect(succeeded == .sendSucceeded(local: outgoing.local, server: server))
            // Bob has it too (a private chat's ids are per account: his copy is found by its text).
            let aliceID = try #require(await alice.user?.id)
            #expect(try await TestWorld.eventually {
                try await TestWorld.messages(in: bob.postbox, with: aliceID).contains { $0.text == "which id?" }
            })
        }
    }

    @Test func aRefusedSendFailsItsHandleWithTelegramsError() async throws {
        try await AccountTests.withAliceAndBob("outgoing-refused") { alice, _ in
            let bobPeer = try await alice.resolve(username: "bob")
            let outgoing = try await alice.send(String(repeating: "x", count: 4_097), to: bobPeer)   // over 4,096
            await #expect(throws: OutgoingMessage.Failure.refused("MESSAGE_TOO_LONG")) { try await outgoing.sent() }
            #expect(outgoing.state == .failed("MESSAGE_TOO_LONG"))
            let local = try await alice.postbox.read { try $0.message(outgoing.local) }
            #expect(local?.flags.contains(.failed) == true)
            // A second wait gives the same answer at once.
            await #expect(throws: OutgoingMessage.Failure.refused("MESSAGE_TOO_LONG")) { try await outgoing.sent() }
        }
    }

    @Test func aWaitCancelledEndsAtOnceAndAHandleWhoseAccountClosesIsUnresolved() async throws {
        try await AccountTests.withServer("outgoing-closed") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bobPeer = try await alice.resolve(username: "bob")
            await alice.network.close()   // offline: the send stays queued
            let outgoing = try await alice.send("after the close", to: bobPeer)
            // A wait given up (a screen closed) ends at once; the send goes on.
            let waiting = Task { () async -> OutgoingMessage.Failure? in
                do throws(OutgoingMessage.Failure) { _ = try await outgoing.sent(); return nil } catch { return error }
            }
            waiting.cancel()
            #expect(await waiting.value == .cancelled)
            await alice.close()
            await #expect(throws: OutgoingMessage.Failure.unresolved) { try await outgoing.sent() }
            #expect(outgoing.state == .pending)
        }
    }

    @Test func typingSetThroughTheAccountArrivesAsATypedAction() async throws {
        try await AccountTests.withAliceAndBob("outgoing-typing") { alice, bob in
            let bobPeer = try await alice.resolve(username: "bob")
            var typing = bob.typing.makeAsyncIterator()
            try await alice.setTyping(.uploadingPhoto(percent: 40), in: bobPeer)
            let aliceID = await alice.user?.id
            let mark = try #require(await typing.next())
            #expect(mark.activity == .uploadingPhoto(percent: 40) && mark.user == aliceID)
            try await alice.setTyping(.cancel, in: bobPeer)
            #expect(await typing.next()?.activity == .cancel)
        }
    }
}

extension OutgoingMessageTests {
    /// A send while the account's manager cannot start (its start must ask the server for the state, and the server is
    /// down) is queued in the store, shown at once, and sent once the manager starts: before, it threw the start's error
    /// (the fault simulation's seed 173 stopped on a `timedOut` so).
    @Test func aSendWhileSyncingCannotStartIsQueuedAndSentOnceItCan() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("outgoing-no-start-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let configuration = Self.serverConfiguration(root)
        let first = try await SyncServer.start(configuration, logger: Logger(label: "test"))
        let port = first.port
        let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", first)
        let accountConfiguration = AccountTests.configuration(root + "/alice", first)
        let bobPeer = try await alice.resolve(username: "bob")
        await alice.close()
        try await first.stop()
        // A cursor this build cannot read: the next start asks the server for the state, and the server is down.
        do {
            let store = try Postbox.open(at: root + "/alice/store.sqlite")
            _ = try await store.transaction { try $0.setCursor([0xFF]) }
        }

        let reopened = try await Account.open(accountConfiguration)
        #expect(await reopened.isLoggedIn)
        let outgoing = try await reopened.send("queued while the server was down", to: bobPeer)
        #expect(outgoing.state == .pending)
        #expect(try await reopened.postbox.read { try $0.message(outgoing.local) }?.flags.contains(.unsent) == true)

        var restarted = configuration
        restarted.port = port
        let second = try await SyncServer.start(restarted, logger: Logger(label: "test"))
        let server = try #require(try await outgoing.sent())   // the manager started (with backoff), then the log sent it
        #expect(try await reopened.postbox.read { try $0.message(server) }?.text == "queued while the server was down")
        await reopened.close()
        try await second.stop()
    }

    /// `connectionReadiness` is what an offline banner shows: ready once the account is connected, connecting while its
    /// server is down (a send meanwhile stays pending), ready again once the server is back and the send has gone.
    @Test func connectionReadinessFollowsTheServerGoingAndComingBack() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("outgoing-readiness-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let configuration = Self.serverConfiguration(root)
        let first = try await SyncServer.start(configuration, logger: Logger(label: "test"))
        let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", first)
        let bobPeer = try await alice.resolve(username: "bob")
        var readiness = alice.connectionReadiness.makeAsyncIterator()
        func next(_ wanted: ConnectionReadiness) async -> Bool {
            while let value = await readiness.next() { if value == wanted { return true } }
            return false
        }
        #expect(await next(.ready))
        let port = first.port
        try await first.stop()
        #expect(await next(.connecting))
        let outgoing = try await alice.send("while the server was down", to: bobPeer)
        #expect(outgoing.state == .pending)
        var restarted = configuration
        restarted.port = port
        let second = try await SyncServer.start(restarted, logger: Logger(label: "test"))
        #expect(await next(.ready))
        #expect(try await outgoing.sent() != nil)
        // A subscription opened now starts with the present state.
        var fresh = alice.connectionReadiness.makeAsyncIterator()
        #expect(await fresh.next() == .ready)
        await alice.close()
        try await second.stop()
    }

    /// A server on a free port whose data directory is under `root`, restartable on the same port.
    static func serverConfiguration(_ root: String) -> SyncServerConfiguration {
        SyncServerConfiguration(port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345",
                                seedDevAccounts: true, sendsPerSecond: 0, initialRSAKey: TestServerKey.key)
    }
}
