import Foundation
import MTProto
import SyncHarness
import SyncTesting
import Testing
import TL
@testable import SyncServer

private func status(in updates: API.Updates) -> (user: Int64, status: API.UserStatus)? {
    guard case let .updateShort(short) = updates, case let .updateUserStatus(value) = short.update else { return nil }
    return (value.userId, value.status)
}

/// Presence on both backends: `account.updateStatus` makes the caller online for five minutes or offline, told to
/// everyone with a dialog with the caller as `updateShort(updateUserStatus)` when it changes between the two; the
/// caller's last session closing is going offline; `users.getUsers` shows the status.
@Suite(.timeLimit(.minutes(2)))
struct PresenceTests {
    @Test(arguments: StorageBackend.all) func onlineAndOfflineReachDialogPeers(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        _ = try await send("hello", to: try await inputUser(1002, in: alice), from: alice)
        _ = try await bob.nextPush()

        #expect(try await alice.call(API.functions.account.UpdateStatus(offline: false)))
        guard let online = status(in: try await bob.nextPush()) else { Issue.record("no status push"); return }
        guard case let .userStatusOnline(value) = online.status else { Issue.record("\(online)"); return }
        #expect(online.user == 1001 && value.expires > Int32(Date().timeIntervalSince1970) + 200)
        // Still online: nobody is told again. Offline is.
        #expect(try await alice.call(API.functions.account.UpdateStatus(offline: false)))
        #expect(try await alice.call(API.functions.account.UpdateStatus(offline: true)))
        guard let offline = status(in: try await bob.nextPush()), case .userStatusOffline = offline.status else {
            Issue.record("the second push is not the offline status"); return
        }
        let users = try await bob.call(API.functions.users.GetUsers(id: [.inputUser(.init(
            userId: 1001, accessHash: try await { () async throws -> Int64 in
                guard case let .inputPeerUser(peer) = try await inputUser(1001, in: bob) else { return 0 }
                return peer.accessHash
            }()))]))
        guard case let .user(seen)? = users.first, case .userStatusOffline? = seen.status else { Issue.record("\(users)"); return }

        // Online again, then the connection goes: offline.
        _ = try await alice.call(API.functions.account.UpdateStatus(offline: false))
        guard case .userStatusOnline? = status(in: try await bob.nextPush())?.status else { Issue.record("not online again"); return }
        await alice.close()
        guard case .userStatusOffline? = status(in: try await bob.nextPush())?.status else { Issue.record("not offline after closing"); return }
        await bob.close()
        try await harness.stop()
    }

    /// A status is in the database: a restarted server shows it as it was (before, every user read "recently" after a
    /// restart).
    @Test(arguments: StorageBackend.all) func aStatusSurvivesARestart(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        #expect(try await alice.call(API.functions.account.UpdateStatus(offline: false)))
        try await harness.stop(removingData: false)
        await alice.close()

        let restarted = try await ServerHarness(backend: backend, directory: harness.directory, postgresURL: harness.postgresURL)
        let bob = try await restarted.loggedIn(bobPhone)
        let users = try await bob.call(API.functions.users.GetUsers(id: [try await userInput(1001, in: bob)]))
        guard case let .user(seen)? = users.first, case let .userStatusOnline(online)? = seen.status else { Issue.record("\(users)"); return }
        #expect(online.expires > Int32(Date().timeIntervalSince1970) + 200)
        await bob.close()
        try await restarted.stop()
    }

    /// Two processes of one data center on one database: a status set through one is shown and pushed by the other;
    /// Alice's connection to the first closing does not make her offline while she was seen later on the second, and
    /// her last connection closing does.
    @Test(.enabled(if: TestPostgres.url != nil)) func aStatusIsKnownToEveryProcess() async throws {
        let database = try await TestPostgres.createDatabase()
        let first = try await ServerHarness(backend: .postgres, postgresURL: database)
        let second = try await ServerHarness(backend: .postgres, postgresURL: database)
        let alice = try await first.loggedIn(alicePhone)
        let bob = try await second.loggedIn(bobPhone)
        _ = try await send("hello", to: try await inputUser(1002, in: alice), from: alice)
        _ = try await bob.nextPush()

        #expect(try await alice.call(API.functions.account.UpdateStatus(offline: false)))
        guard let online = status(in: try await bob.nextPush()), case .userStatusOnline = online.status, online.user == 1001 else {
            Issue.record("no online push through the other process"); return
        }
        let users = try await bob.call(API.functions.users.GetUsers(id: [try await userInput(1001, in: bob)]))
        guard case let .user(seen)? = users.first, case .userStatusOnline? = seen.status else { Issue.record("\(users)"); return }

        // Alice's other device, on the second process, is seen later: her first connection closing changes nothing.
        let aliceElsewhere = try await second.loggedIn(alicePhone)
        #expect(try await aliceElsewhere.call(API.functions.account.UpdateStatus(offline: false)))
        await alice.close()
        let stored = try await first.server.context.storage.read { try $0.userStatus(user: 1001) }
        try await Task.sleep(for: .milliseconds(300))
        let still = try await first.server.context.storage.read { try $0.userStatus(user: 1001) }
        #expect(stored?.online == true && still?.online == true && still?.origin == second.server.context.processOrigin, "\(String(describing: still))")
        // Her last connection closing: offline, pushed to Bob.
        await aliceElsewhere.close()
        guard case .userStatusOffline? = status(in: try await bob.nextPush())?.status else { Issue.record("not offline"); return }
        await bob.close()
        try await second.stop()
        try await first.stop()
    }

    /// A client toggling its status in a loop is told to others at most as `statusRate` allows (each telling reads the
    /// user's dialog owners): 40 changes reach Bob 10 times, and once per 2 s the calls took.
    @Test func statusChangesToldToOthersAreRateLimited() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let toBob = try await inputUser(1002, in: alice)
        _ = try await send("hello", to: toBob, from: alice)
        _ = try await bob.nextPush()
        let started = ContinuousClock.now
        for index in 0..<40 { _ = try await alice.call(API.functions.account.UpdateStatus(offline: index % 2 == 1)) }
        // The bucket refills one every 2 s: under the whole suite's load the 40 calls may take long enough for a few.
        let refills = Int((ContinuousClock.now - started).components.seconds / 2) + 1
        _ = try await send("marker", to: toBob, from: alice)
        var told = 0
        while true {
            let push = try await bob.nextPush()
            let updates: [API.Update] = switch push {
            case let .updateShort(short): [short.update]
            case let .updates(value): value.updates
            case let .updatesCombined(value): value.updates
            default: []
            }
            told += updates.filter { if case .updateUserStatus = $0 { true } else { false } }.count
            if !PushInbox.newMessages(in: push).isEmpty { break }
        }
        #expect(told >= 1 && told <= 10 + refills, "\(told) status updates, \(refills) refills")
        await alice.close(); await bob.close()
        try await harness.stop()
    }
}

/// The `inputUser` of a user `client` can see (its access hash read through `inputUser`).
private func userInput(_ id: Int64, in client: TestClient) async throws -> API.InputUser {
    guard case let .inputPeerUser(peer) = try await inputUser(id, in: client) else { throw TestClientError.unexpected("no user \(id)") }
    return .inputUser(.init(userId: peer.userId, accessHash: peer.accessHash))
}
