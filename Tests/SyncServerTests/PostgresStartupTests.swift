import Foundation
import Logging
import MTProtoNIO
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Starting and running a server on a database that is not there yet, goes away, or was never created, as an
/// operator meets them: a start waits (logging each wait) and serves once PostgreSQL answers; a missing database says
/// how to create it; an outage reads as two lines, not one per call; a port in use names the address.
@Suite(.timeLimit(.minutes(2)), .enabled(if: TestPostgres.url != nil))
struct PostgresStartupTests {
    /// The test database behind a relay that refuses connections until told otherwise (PostgreSQL not up yet).
    static func relayedDatabase() async throws -> (url: String, relayed: String, relay: FaultyRelay, port: Int) {
        let url = try await TestPostgres.createDatabase()
        var components = try #require(URLComponents(string: url))
        let port = try #require(components.port)
        let relay = try await FaultyRelay.start(targetPort: port, seed: 4, rawBytes: true)
        components.port = relay.port
        return (url, try #require(components.string), relay, port)
    }

    static func configuration(_ url: String, wait: Duration) -> SyncServerConfiguration {
        var configuration = SyncServerConfiguration(port: 0, dataDirectory: ServerKeysTests.temporaryDirectory(), loginCode: "12345",
                                                    seedDevAccounts: true, postgresURL: url, initialRSAKey: TestServerKey.key)
        configuration.postgresWait = wait
        return configuration
    }

    @Test func aServerStartedBeforeItsDatabaseServesOnceItAnswers() async throws {
        let (url, relayed, relay, port) = try await Self.relayedDatabase()
        relay.setTarget(nil)
        let log = CapturedLog()
        let starting = Task { try await SyncServer.start(Self.configuration(relayed, wait: .seconds(60)), logger: log.logger()) }
        #expect(try await Self.eventually { log.count("waiting for PostgreSQL") >= 3 }, "\(log.all)")
        let waits = log.all.filter { $0.contains("waiting for PostgreSQL") }
        #expect(waits.allSatisfy { $0.contains("cause=") && $0.contains("next_try_in=") }, "\(waits)")
        relay.setTarget(port)
        let server = try await starting.value
        #expect(log.count("PostgreSQL answers; starting") == 1, "\(log.all)")
        let alice = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        try await alice.login(phone: alicePhone)
        _ = try await alice.call(API.functions.messages.SendMessage(peer: .inputPeerSelf(.init()), message: "served", randomId: 1))
        await alice.close()
        try await server.stop()
        await relay.stop()
        await TestPostgres.dropDatabase(url)
    }

    @Test func aStartGivesUpAfterItsWaitWithTheCause() async throws {
        let (url, relayed, relay, _) = try await Self.relayedDatabase()
        relay.setTarget(nil)
        let started = ContinuousClock.now
        do {
            _ = try await SyncServer.start(Self.configuration(relayed, wait: .seconds(1)), logger: CapturedLog().logger())
            Issue.record("started without a database")
        } catch {
            #expect("\(error)".contains("did not answer within 1 s"), "\(error)")
            #expect("\(error)".contains("--postgres-wait"), "\(error)")
        }
        // Its 1 s, not the default 60 s (plus one attempt's own time, which under a loaded CI reached 15 s).
        #expect(ContinuousClock.now - started < .seconds(45))
        await relay.stop()
        await TestPostgres.dropDatabase(url)
    }

    @Test func aMissingDatabaseSaysHowToCreateItAndIsNotWaitedFor() async throws {
        let base = try #require(TestPostgres.url)
        var components = try #require(URLComponents(string: base))
        components.path = "/synccore_never_created"
        let started = ContinuousClock.now
        do {
            _ = try await SyncServer.start(Self.configuration(try #require(components.string), wait: .seconds(60)), logger: CapturedLog().logger())
            Issue.record("started on a database that does not exist")
        } catch {
            #expect("\(error)".contains("does not exist"), "\(error)")
            #expect("\(error)".contains("CREATE DATABASE \"synccore_never_created\""), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(10), "not waited for")
    }

    /// PostgreSQL goes away for a few seconds under a serving process with clients sending: the commit feed logs one
    /// warning and one line when it is back, and the failed calls a line per method (not one per call).
    @Test func anOutageReadsAsAFewLines() async throws {
        let (url, relayed, relay, port) = try await Self.relayedDatabase()
        let log = CapturedLog()
        let server = try await SyncServer.start(Self.configuration(relayed, wait: .seconds(10)), logger: log.logger())
        let alice = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        try await alice.login(phone: alicePhone)

        relay.setTarget(nil)
        relay.cutAll()
        var failed = 0
        for index in 0..<40 {
            do {
                _ = try await alice.call(API.functions.messages.SendMessage(peer: .inputPeerSelf(.init()), message: "\(index)",
                                                                         randomId: Int64(index + 1)))
            } catch { failed += 1 }
            try await Task.sleep(for: .milliseconds(50))   // 2 s of calls and reconnection attempts
        }
        relay.setTarget(port)
        #expect(try await Self.eventually { log.count("commit feed is back") == 1 }, "\(log.all)")
        #expect(failed >= 30, "the calls failed while the database was away: \(failed)")
        #expect(log.count("commit feed lost its connection") == 1, "\(log.all)")
        let failures = log.all.filter { $0.contains("storage failure") }
        #expect(failures.count <= 3 && failures.allSatisfy { $0.contains("method=messages.sendMessage") }, "\(failures)")
        await alice.close()
        try await server.stop()
        await relay.stop()
        await TestPostgres.dropDatabase(url)
    }

    static func eventually(_ seconds: Double = 30, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }
}

/// A port in use and the log's bounds, without a database.
struct StartupMessageTests {
    @Test func aPortInUseNamesTheAddress() async throws {
        let first = try await ServerHarness()
        do {
            let second = try await ServerHarness(port: first.server.port)
            try await second.stop()
            Issue.record("two servers on one port")
        } catch {
            #expect("\(error)" == "cannot listen on 127.0.0.1:\(first.server.port): the address is in use (another process listens there; give each server its own port)")
        }
        try await first.stop()
    }

    @Test func storageFailuresAreLoggedOncePerMethodAndInterval() {
        let clock = VirtualClock(start: 0)
        let log = FailureLog(interval: 10, now: { clock.now })
        #expect(log.admit("messages.sendMessage") == 0)
        for _ in 0..<99 { #expect(log.admit("messages.sendMessage") == nil) }
        #expect(log.admit("messages.getHistory") == 0, "another method has its own line")
        clock.advance(by: 10)
        #expect(log.admit("messages.sendMessage") == 99, "the next line says how many were left out")
        #expect(log.admit("messages.sendMessage") == nil)
    }

    @Test func aLostConnectionWarnsOnceAndSaysWhenItIsBack() {
        var log = ReconnectLog()
        #expect(log.pause == 0.2)
        let first = log.lost(now: 100)
        let (second, third) = (log.lost(now: 100.2), log.lost(now: 100.6))
        #expect(first && !second && !third, "one warning")
        #expect(log.pause == 0.8)
        for second in 0..<10 { _ = log.lost(now: 101 + Double(second)) }
        #expect(log.pause == 2, "capped")
        let back = log.back(now: 112)
        #expect(back?.seconds == 12 && back?.attempts == 13)
        let again = log.back(now: 113)
        #expect(again == nil, "said once")
    }
}

/// Two processes of one data center on one database (in this process, sharing the data directory as they do today):
/// a client whose connection moves to the other process between `auth.sendCode` and `auth.signIn` logs in there, since
/// the code lives in the database; a wrong code counted by one process counts for the other.
@Suite(.timeLimit(.minutes(2)), .enabled(if: TestPostgres.url != nil))
struct SharedLoginCodeTests {
    @Test func aCodeSentByOneProcessSignsInThroughTheOther() async throws {
        let database = try await TestPostgres.createDatabase()
        // Data directories of their own: the RSA key, the auth keys and the codes are in the database.
        let first = try await ServerHarness(backend: .postgres, postgresURL: database)
        let second = try await ServerHarness(backend: .postgres, postgresURL: database)
        let key = first.server.keys.rsaKey.publicKey
        #expect(second.server.keys.rsaKey.publicKey == key, "one database, one RSA key")

        let onFirst = try await TestClient(port: first.server.port, publicKey: key, inspector: checkPeerReferences)
        guard case let .sentCode(sent) = try await onFirst.call(API.functions.auth.SendCode(
            phoneNumber: alicePhone, apiId: 1, apiHash: "test", settings: .codeSettings(.init()))) else { Issue.record("no code"); return }
        let onSecond = try await TestClient(port: second.server.port, publicKey: key, existingKey: onFirst.connection.key,
                                            inspector: checkPeerReferences)
        await expectRPCError("PHONE_CODE_INVALID") {
            try await onSecond.call(API.functions.auth.SignIn(phoneNumber: alicePhone, phoneCodeHash: sent.phoneCodeHash, phoneCode: "00000"))
        }
        let wrong = try await first.server.context.storage.read { try $0.loginCode(hash: sent.phoneCodeHash)?.wrongAttempts }
        #expect(wrong == 1, "the wrong code counted where the first process reads it")
        guard case .authorization = try await onSecond.call(API.functions.auth.SignIn(
            phoneNumber: alicePhone, phoneCodeHash: sent.phoneCodeHash, phoneCode: "12345")) else { Issue.record("not signed in"); return }
        _ = try await onSecond.call(API.functions.messages.SendMessage(peer: .inputPeerSelf(.init()), message: "in", randomId: 1))
        await onFirst.close()
        await onSecond.close()
        try await second.stop()
        try await first.stop()
    }
}
