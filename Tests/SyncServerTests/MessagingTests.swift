import Foundation
import Logging
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// A server on a free port with the dev accounts and login code 12345, in a temporary data directory, on SQLite or
/// on a fresh PostgreSQL database of the test cluster (`backend`). Its RSA key is the tests' shared one
/// (`TestServerKey`) unless `rsaKey` names another (a server whose key must differ).
final class ServerHarness: Sendable {
    let directory: String
    let server: SyncServer
    /// The database of a PostgreSQL-backed harness.
    let postgresURL: String?

    init(backend: StorageBackend = .sqlite, differencePageSize: Int = 1_000, tooLongThreshold: Int = 1_000_000,
         channelTooLongThreshold: Int = 10_000, sendsPerSecond: Double = 10_000, dcCount: Int = 1, directory: String? = nil,
         port: Int = 0, secret: [UInt8]? = nil, configURL: String? = nil, postgresURL: String? = nil,
         environment: SyncEnvironment? = nil, metricsPort: Int? = nil, userStorageQuota: Int64? = nil,
         uploadLifetime: Int32? = nil, rsaKey: RSAPrivateKey? = TestServerKey.key) async throws {
        let directory = directory ?? ServerKeysTests.temporaryDirectory()
        self.directory = directory
        var database = postgresURL
        if backend == .postgres, database == nil { database = try await TestPostgres.createDatabase() }
        self.postgresURL = database
        var configuration = SyncServerConfiguration(
            port: port, dc: 2, dataDirectory: directory, secret: secret, loginCode: "12345", seedDevAccounts: true,
            differencePageSize: differencePageSize, tooLongThreshold: tooLongThreshold, channelTooLongThreshold: channelTooLongThreshold,
            sendsPerSecond: sendsPerSecond, dcCount: dcCount, metricsPort: metricsPort, configURL: configURL, postgresURL: database,
            initialRSAKey: rsaKey)
        if let environment { configuration.environment = environment }   // a test clock (`VirtualClock`)
        if let userStorageQuota { configuration.userStorageQuota = userStorageQuota }
        if let uploadLifetime { configuration.uploadLifetime = uploadLifetime }
        server = try await SyncServer.start(configuration, logger: Logger(label: "test"))
    }

    /// A second handle on the harness's data, for a test to write what no method does (SQLite file or database).
    func openStorage() async throws -> any ServerStorage {
        try await SyncServer.openStorage(SyncServerConfiguration(dataDirectory: directory, postgresURL: postgresURL),
                                         logger: Logger(label: "test"))
    }

    /// A client of the first served DC, or of `dc`.
    func client(dc: Int32? = nil) async throws -> TestClient {
        try await TestClient(port: dc.flatMap { server.ports[$0] } ?? server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
    }

    func loggedIn(_ phone: String) async throws -> TestClient {
        let client = try await client()
        try await client.login(phone: phone)
        return client
    }

    func stop(removingData: Bool = true) async throws {
        try await server.stop()
        guard removingData else { return }
        try? FileManager.default.removeItem(atPath: directory)
        if let postgresURL { await TestPostgres.dropDatabase(postgresURL) }
    }
}

let alicePhone = "+15550001", bobPhone = "+15550002", carolPhone = "+15550003"

/// A seeded user as an input peer, resolved the way clients do (`contacts.resolveUsername`), so the access hash is
/// the one the server hands out.
func inputUser(_ id: Int64, in client: TestClient) async throws -> API.InputPeer {
    let username = ["alice", "bob", "carol"][Int(id - 1001)]
    guard case let .resolvedPeer(resolved) = try await client.call(API.functions.contacts.ResolveUsername(username: username)),
          case let .user(user)? = resolved.users.first(where: { if case let .user(u) = $0 { u.id == id } else { false } }),
          let accessHash = user.accessHash
    else { throw TestClientError.unexpected("cannot resolve \(username)") }
    return .inputPeerUser(.init(userId: id, accessHash: accessHash))
}

/// The same user as an `InputUser`.
func inputUserValue(_ id: Int64, in client: TestClient) async throws -> API.InputUser {
    guard case let .inputPeerUser(peer) = try await inputUser(id, in: client) else { throw TestClientError.unexpected("no user") }
    return .inputUser(.init(userId: peer.userId, accessHash: peer.accessHash))
}

func send(_ text: String, to peer: API.InputPeer, from client: TestClient, randomID: Int64 = .random(in: 1...Int64.max))
    async throws -> API.Updates.UpdateShortSentMessage {
    let result = try await client.call(API.functions.messages.SendMessage(peer: peer, message: text, randomId: randomID))
    guard case let .updateShortSentMessage(sent) = result else { throw TestClientError.unexpected("\(result)") }
    return sent
}

/// The newest `limit` messages of `peer`'s history as `client` sees them (any of the three answer forms).
func historyMessages(_ client: TestClient, in peer: API.InputPeer, limit: Int32 = 50) async throws -> [API.Message] {
    switch try await client.call(API.functions.messages.GetHistory(
        peer: peer, offsetId: 0, offsetDate: 0, addOffset: 0, limit: limit, maxId: 0, minId: 0, hash: 0)) {
    case let .messages(value): value.messages
    case let .messagesSlice(value): value.messages
    case let .channelMessages(value): value.messages
    case .messagesNotModified: []
    }
}

/// Reads pushes until `count` new messages came (pushes that pile up for a session may leave merged, in one
/// `updatesCombined`, so the number of pushes is not the number of messages).
func receiveMessages(_ count: Int, at client: TestClient) async throws {
    var seen = 0
    while seen < count {
        switch try await client.nextPush() {
        case .updateShortMessage, .updateShortChatMessage: seen += 1
        case let .updates(value): seen += value.updates.filter { $0.constructorName == "updateNewMessage" }.count
        case let .updatesCombined(value): seen += value.updates.filter { $0.constructorName == "updateNewMessage" }.count
        default: continue
        }
    }
}

func state(of client: TestClient) async throws -> API.updates.State.State {
    guard case let .state(state) = try await client.call(API.functions.updates.GetState()) else { throw TestClientError.unexpected("state") }
    return state
}

@Suite(.timeLimit(.minutes(2)))
struct LoginTests {
    @Test(arguments: StorageBackend.all) func signInBindsTheKeyAndUnknownPhonesSignUp(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let client = try await harness.client()
        await #expect(throws: (any Error).self) { try await client.call(API.functions.updates.GetState()) }   // 401 first
        guard case let .user(alice) = try await client.login(phone: alicePhone) else { Issue.record("no user"); return }
        #expect(alice.id == 1001 && alice.`self` && alice.username == "alice")
        #expect(try await state(of: client).pts == 0)

        let stranger = try await harness.client()
        guard case let .sentCode(code) = try await stranger.call(API.functions.auth.SendCode(
            phoneNumber: "+15559999", apiId: 1, apiHash: "x", settings: .codeSettings(.init()))) else { return }
        let wrong = try? await stranger.call(API.functions.auth.SignIn(phoneNumber: "+15559999", phoneCodeHash: code.phoneCodeHash,
                                                                       phoneCode: "00000"))
        #expect(wrong == nil)   // PHONE_CODE_INVALID
        let signIn = try await stranger.call(API.functions.auth.SignIn(phoneNumber: "+15559999", phoneCodeHash: code.phoneCodeHash,
                                                                       phoneCode: "12345"))
        guard case .authorizationSignUpRequired = signIn else { Issue.record("expected sign-up required: \(signIn)"); return }
        guard case let .authorization(created) = try await stranger.call(API.functions.auth.SignUp(
            phoneNumber: "+15559999", phoneCodeHash: code.phoneCodeHash, firstName: "Dave", lastName: "")),
              case let .user(dave) = created.user else { Issue.record("sign-up failed"); return }
        #expect(dave.id >= AccountSeed.firstSignUpID && dave.firstName == "Dave")
        await client.close()
        await stranger.close()
        try await harness.stop()
    }
}

@Suite(.timeLimit(.minutes(2)))
struct PrivateMessagingTests {
    @Test(arguments: StorageBackend.all) func aSendAdvancesBothBoxesByOneAndIsPushedToTheOthers(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let aliceElsewhere = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        _ = try await state(of: aliceElsewhere)
        _ = try await state(of: bob)   // online from their first logged-in call

        let sent = try await send("hi bob", to: try await inputUser(1002, in: alice), from: alice)
        #expect(sent.pts == 1 && sent.ptsCount == 1 && sent.out)
        guard case let .updateShortMessage(atBob) = try await bob.nextPush() else { Issue.record("no push to bob"); return }
        #expect(atBob.message == "hi bob" && atBob.userId == 1001 && !atBob.out && atBob.pts == 1 && atBob.ptsCount == 1)
        guard case let .updateShortMessage(atAlice) = try await aliceElsewhere.nextPush() else { Issue.record("no push"); return }
        #expect(atAlice.out && atAlice.userId == 1002 && atAlice.id == sent.id && atAlice.pts == 1)

        let second = try await send("again", to: try await inputUser(1002, in: alice), from: alice)
        #expect(second.pts == 2 && second.id == sent.id + 1)
        #expect(try await state(of: bob).pts == 2)
        for client in [alice, aliceElsewhere, bob] { await client.close() }
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func aRepeatedRandomIDReturnsTheFirstResult(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let peer = try await inputUser(1002, in: alice)
        let first = try await send("once", to: peer, from: alice, randomID: 42)
        let again = try await send("once", to: peer, from: alice, randomID: 42)
        #expect(first.id == again.id && first.pts == again.pts)
        let (alicePts, bobPts) = (try await state(of: alice).pts, try await state(of: bob).pts)
        #expect(alicePts == 1 && bobPts == 1)
        // The same random_id for another chat is not a retry.
        await #expect { try await send("other", to: try await inputUser(1003, in: alice), from: alice, randomID: 42) }
            throws: { "\($0)".contains("RANDOM_ID_DUPLICATE") }
        // A retry whose first answer was lost while another device deleted the message still gets that answer (its
        // pts lets the client learn of the deletion); before, it was refused and the client marked the send failed.
        let doomed = try await send("deleted before the retry", to: peer, from: alice, randomID: 43)
        _ = try await alice.call(API.functions.messages.DeleteMessages(revoke: true, id: [doomed.id]))
        let retried = try await send("deleted before the retry", to: peer, from: alice, randomID: 43)
        #expect(retried.id == doomed.id && retried.pts == doomed.pts)
        let key = alice.connection.key
        await alice.close()
        await bob.close()
        try await harness.stop(removingData: false)

        // Retries are recognised after a restart (the window is read back from the log)...
        let restarted = try await ServerHarness(backend: backend, directory: harness.directory, postgresURL: harness.postgresURL)
        let aliceAgain = try await TestClient(port: restarted.server.port, publicKey: restarted.server.keys.rsaKey.publicKey,
                                              existingKey: key, inspector: checkPeerReferences)
        let peerAgain = try await inputUser(1002, in: aliceAgain)
        let afterRestart = try await send("once", to: peerAgain, from: aliceAgain, randomID: 42)
        #expect(afterRestart.id == first.id && afterRestart.pts == first.pts)
        // ...on SQLite among the sender's last RecentSends.window sends (an older random_id is new again); PostgreSQL
        // finds every earlier send through its index.
        for index in 0..<RecentSends.window { _ = try await send("filler \(index)", to: peerAgain, from: aliceAgain, randomID: 1_000 + Int64(index)) }
        let recent = try await send("filler 0", to: peerAgain, from: aliceAgain, randomID: 1_000)
        #expect(recent.pts == 4)   // the first filler's answer again (after "once", the deleted message and its deletion)
        let old = try await send("once", to: peerAgain, from: aliceAgain, randomID: 42)
        if backend == .sqlite {
            #expect(old.id != first.id && old.pts == 4 + Int32(RecentSends.window))
        } else {
            #expect(old.id == first.id && old.pts == first.pts)
        }
        await aliceAgain.close()
        try await restarted.stop()
    }

    @Test(arguments: StorageBackend.all) func badInputGetsTheDocumentedErrors(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let peer = try await inputUser(1002, in: alice)
        for (text, expected) in [("  ", "MESSAGE_EMPTY"), (String(repeating: "y", count: 4_097), "MESSAGE_TOO_LONG")] {
            await #expect { try await send(text, to: peer, from: alice) } throws: { "\($0)".contains(expected) }
        }
        let forged = API.InputPeer.inputPeerUser(.init(userId: 1002, accessHash: 1))
        await #expect { try await send("x", to: forged, from: alice) } throws: { "\($0)".contains("PEER_ID_INVALID") }
        await #expect {
            try await alice.call(API.functions.contacts.ResolveUsername(username: "nobody"))
        } throws: { "\($0)".contains("USERNAME_NOT_OCCUPIED") }
        await alice.close()
        try await harness.stop()
    }

    /// Each user reads only their own box: Bob cannot read Alice–Carol messages by id or through a dialog.
    @Test(arguments: StorageBackend.all) func usersReadOnlyTheirOwnBoxes(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let sent = try await send("for carol only", to: try await inputUser(1003, in: alice), from: alice)
        guard case let .messages(byID) = try await bob.call(API.functions.messages.GetMessages(id: [.inputMessageID(.init(id: sent.id))]))
        else { Issue.record("unexpected"); return }
        #expect(byID.messages.isEmpty)
        let history = try await bob.call(API.functions.messages.GetHistory(
            peer: try await inputUser(1003, in: bob), offsetId: 0, offsetDate: 0, addOffset: 0, limit: 100, maxId: 0, minId: 0, hash: 0))
        guard case let .messages(page) = history else { Issue.record("unexpected \(history)"); return }
        #expect(page.messages.isEmpty)
        await alice.close()
        await bob.close()
        try await harness.stop()
    }
}

/// The login code rules over a real storage of each backend (the codes live in the database).
struct LoginCodeTests {
    /// `LoginCodes` with each call in a write of its own, as the handlers run them.
    final class Codes: @unchecked Sendable {
        let codes: LoginCodes
        let storage: any ServerStorage
        let cleanup: @Sendable () async -> Void
        var random: SplitMix64

        init(fixedCode: String?, seed: UInt64, backend: StorageBackend) async throws {
            codes = LoginCodes(fixedCode: fixedCode)
            random = SplitMix64(seed: seed)
            if backend == .postgres {
                let url = try await TestPostgres.createDatabase()
                storage = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
                cleanup = { await TestPostgres.dropDatabase(url) }
            } else {
                let directory = ServerKeysTests.temporaryDirectory()
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                storage = try SQLiteServerStorage(path: directory + "/server.sqlite")
                cleanup = { try? FileManager.default.removeItem(atPath: directory) }
            }
        }

        func issue(phone: String, key: UInt64, now: Int32) async throws -> (hash: String, code: String) {
            let (codes, drawn) = (self.codes, LoginCodes.draw(using: &random))
            let code = try await storage.write { tx in try codes.issue(phone: phone, authKeyID: key, now: now, drawn: drawn, in: tx) }
            return (drawn.hash, code)
        }

        func check(phone: String, hash: String, code: String, key: UInt64, now: Int32) async throws -> LoginCodes.Check {
            let codes = self.codes
            return try await storage.write { tx in try codes.check(phone: phone, hash: hash, code: code, authKeyID: key, now: now, in: tx) }
        }

        func consumeVerified(phone: String, hash: String, key: UInt64, now: Int32) async throws -> Bool {
            let codes = self.codes
            return try await storage.write { tx in try codes.consumeVerified(phone: phone, hash: hash, authKeyID: key, now: now, in: tx) }
        }

        func close() async {
            await storage.close()
            await cleanup()
        }
    }

    @Test(arguments: StorageBackend.all) func aCodeIsBoundToItsKeyUsedOnceAndVoidAfterFiveWrongAttempts(backend: StorageBackend) async throws {
        let codes = try await Codes(fixedCode: nil, seed: 7, backend: backend)
        let (hash, code) = try await codes.issue(phone: "1", key: 10, now: 0)
        for _ in 0..<4 { #expect(try await codes.check(phone: "1", hash: hash, code: "x", key: 10, now: 0) == .invalid) }
        #expect(try await codes.check(phone: "1", hash: hash, code: code, key: 11, now: 0) == .expired)   // another key
        #expect(try await codes.check(phone: "2", hash: hash, code: code, key: 10, now: 0) == .expired)   // another phone
        #expect(try await codes.check(phone: "1", hash: hash, code: code, key: 10, now: 0) == .ok)
        #expect(try await codes.check(phone: "1", hash: hash, code: code, key: 10, now: 0) == .expired)   // used
        #expect(try await !codes.consumeVerified(phone: "1", hash: hash, key: 11, now: 0))
        #expect(try await codes.consumeVerified(phone: "1", hash: hash, key: 10, now: 0))                 // one sign-up
        #expect(try await !codes.consumeVerified(phone: "1", hash: hash, key: 10, now: 0))

        let (other, otherCode) = try await codes.issue(phone: "1", key: 10, now: 0)
        for _ in 0..<5 { _ = try await codes.check(phone: "1", hash: other, code: "x", key: 10, now: 0) }
        #expect(try await codes.check(phone: "1", hash: other, code: otherCode, key: 10, now: 0) == .expired)
        let (late, lateCode) = try await codes.issue(phone: "1", key: 10, now: 0)
        #expect(try await codes.check(phone: "1", hash: late, code: lateCode, key: 10, now: LoginCodes.lifetime) == .expired)
        await codes.close()
    }

    @Test(arguments: StorageBackend.all) func sendingCodesAndWrongCodesAreLimitedPerPhoneAndKey(backend: StorageBackend) async throws {
        let codes = try await Codes(fixedCode: nil, seed: 8, backend: backend)
        var hashes: [String] = []
        for index in 0..<LoginCodes.codesPerPhone {
            hashes.append(try await codes.issue(phone: "1", key: UInt64(index), now: 100).hash)
        }
        await #expect(throws: RPCError.floodWait(LoginCodes.window)) { try await codes.issue(phone: "1", key: 99, now: 100) }
        await #expect(throws: RPCError.floodWait(1)) { try await codes.issue(phone: "1", key: 99, now: 100 + LoginCodes.window - 1) }
        // Only the newest code of a phone is live.
        #expect(try await codes.check(phone: "1", hash: hashes[0], code: "x", key: 0, now: 100) == .expired)
        // Per key: ten phones, then a wait.
        for phone in 10..<(10 + LoginCodes.codesPerKey) { _ = try await codes.issue(phone: "\(phone)", key: 500, now: 100) }
        await #expect(throws: RPCError.floodWait(LoginCodes.window)) { try await codes.issue(phone: "99", key: 500, now: 100) }
        await codes.close()
        // Wrong codes for one phone across hashes and keys: ten an hour.
        let guessing = try await Codes(fixedCode: "12345", seed: 9, backend: backend)
        for key in 0..<UInt64(LoginCodes.wrongPerPhone) {
            let (hash, _) = try await guessing.issue(phone: "5", key: key, now: 100)
            #expect(try await guessing.check(phone: "5", hash: hash, code: "00000", key: key, now: 100) == .invalid)
        }
        let (hash, _) = try await guessing.issue(phone: "5", key: 77, now: 100)   // a fixed code is not rate-limited
        #expect(try await guessing.check(phone: "5", hash: hash, code: "12345", key: 77, now: 100) == .flood(LoginCodes.window))
        let (later, _) = try await guessing.issue(phone: "5", key: 77, now: 100 + LoginCodes.window)
        #expect(try await guessing.check(phone: "5", hash: later, code: "12345", key: 77, now: 100 + LoginCodes.window) == .ok)
        await guessing.close()
    }
}
