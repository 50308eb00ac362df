import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// The `updateUserName` of a sequenced push: its seq and the update.
private func renamed(_ updates: API.Updates) -> (seq: Int32, update: API.Update.UpdateUserName, users: [API.User], date: Int32)? {
    guard case let .updates(value) = updates, value.updates.count == 1, case let .updateUserName(update) = value.updates[0] else { return nil }
    return (value.seq, update, value.users, value.date)
}

private func firstName(of user: API.User) -> String? {
    if case let .user(value) = user { value.firstName } else { nil }
}

/// Profiles on both backends: `account.updateProfile`, `account.checkUsername` and `account.updateUsername` with
/// Telegram's refusals; a new name reaches the user's own sessions and everyone with a dialog with the user as an
/// `updateUserName` in an `updates` whose seq is the box's next, and a difference lists it among `other_updates`
/// with the state's seq.
@Suite(.timeLimit(.minutes(2)))
struct ProfileTests {
    @Test(arguments: StorageBackend.all) func aNewNameReachesOwnSessionsAndDialogPeersWithTheNextSeq(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let aliceElsewhere = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        _ = try await send("hello", to: try await inputUser(1002, in: alice), from: alice)
        _ = try await bob.nextPush()
        _ = try await aliceElsewhere.nextPush()
        let bobBefore = try await state(of: bob)

        let answer = try await alice.call(API.functions.account.UpdateProfile(firstName: "Alicia", about: "  tea and tests "))
        #expect(firstName(of: answer) == "Alicia")
        var renamedAt: Int32 = 0
        for (client, name) in [(alice, "the caller"), (aliceElsewhere, "Alice's other session"), (bob, "Bob")] {
            guard let push = renamed(try await client.nextPush()) else { Issue.record("no updateUserName for \(name)"); continue }
            renamedAt = push.date
            #expect(push.seq == 1 && push.update.userId == 1001 && push.update.firstName == "Alicia", "\(name): \(push)")
            #expect(push.users.map(firstName) == ["Alicia"])
        }
        #expect(try await state(of: bob).seq == bobBefore.seq + 1)
        #expect(try await state(of: carol).seq == 0, "Carol has no dialog with Alice")

        // Bob missed it (a new device): his difference from before has it, with the seq.
        guard case let .difference(difference) = try await bob.call(API.functions.updates.GetDifference(
            pts: bobBefore.pts, date: bobBefore.date, qts: 0)) else { Issue.record("no difference"); return }
        let names = difference.otherUpdates.compactMap { if case let .updateUserName(value) = $0 { value.firstName } else { nil } }
        #expect(names == ["Alicia"])
        #expect(difference.users.compactMap(firstName).contains("Alicia"))
        if case let .state(final) = difference.state { #expect(final.seq == 1) }
        // Asked from seconds after it (a date handed out while the rename was being written), it is still listed.
        guard case let .difference(late) = try await bob.call(API.functions.updates.GetDifference(
            pts: bobBefore.pts, date: renamedAt + Difference.lookback, qts: 0)) else { Issue.record("no late difference"); return }
        #expect(late.otherUpdates.contains { if case .updateUserName = $0 { true } else { false } })

        // The bio is read with getFullUser; a second name change is the next seq.
        guard case let .userFull(full) = try await bob.call(API.functions.users.GetFullUser(
            id: .inputUser(.init(userId: 1001, accessHash: try await accessHash(1001, in: bob))))),
              case let .userFull(details) = full.fullUser else { Issue.record("no full user"); return }
        #expect(details.about == "tea and tests")
        _ = try await alice.call(API.functions.account.UpdateProfile(lastName: "Liddell"))
        #expect(renamed(try await bob.nextPush())?.seq == 2)

        await expectRPCError("FIRSTNAME_INVALID") { try await alice.call(API.functions.account.UpdateProfile(firstName: "  ")) }
        await expectRPCError("ABOUT_TOO_LONG") {
            try await alice.call(API.functions.account.UpdateProfile(about: String(repeating: "é", count: 71)))
        }
        for client in [alice, aliceElsewhere, bob, carol] { await client.close() }
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func usernamesAreCheckedTakenAndTold(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        _ = try await send("hello", to: try await inputUser(1002, in: alice), from: alice)
        _ = try await bob.nextPush()

        #expect(try await alice.call(API.functions.account.CheckUsername(username: "alice")), "her own")
        #expect(try await alice.call(API.functions.account.CheckUsername(username: "Carol")) == false)
        #expect(try await alice.call(API.functions.account.CheckUsername(username: "wonderland")))
        for invalid in ["abc", "1alice", "alice_", "al ice", "alicé", String(repeating: "a", count: 33)] {
            await expectRPCError("USERNAME_INVALID") { try await alice.call(API.functions.account.CheckUsername(username: invalid)) }
        }
        await expectRPCError("USERNAME_NOT_MODIFIED") { try await alice.call(API.functions.account.UpdateUsername(username: "alice")) }
        await expectRPCError("USERNAME_OCCUPIED") { try await alice.call(API.functions.account.UpdateUsername(username: "CAROL")) }

        _ = try await alice.call(API.functions.account.UpdateUsername(username: "Wonderland"))
        guard let push = renamed(try await bob.nextPush()) else { Issue.record("no updateUserName"); return }
        #expect(push.update.usernames == [.username(.init(editable: true, active: true, username: "Wonderland"))])
        guard case let .resolvedPeer(found) = try await bob.call(API.functions.contacts.ResolveUsername(username: "wonderland")) else { return }
        #expect(found.peer == .peerUser(.init(userId: 1001)))
        await expectRPCError("USERNAME_NOT_OCCUPIED") { try await bob.call(API.functions.contacts.ResolveUsername(username: "alice")) }

        _ = try await alice.call(API.functions.account.UpdateUsername(username: ""))
        #expect(renamed(try await bob.nextPush())?.update.usernames == [])
        #expect(try await bob.call(API.functions.account.CheckUsername(username: "wonderland")))
        await alice.close(); await bob.close()
        try await harness.stop()
    }

    /// With PostgreSQL, a change made through one process reaches Bob's session on another live (the seq-log event is
    /// announced and read there), and that process's user cache forgets the old row.
    @Test(.enabled(if: TestPostgres.url != nil)) func anotherProcessPushesAndSeesTheNewName() async throws {
        let first = try await ServerHarness(backend: .postgres)
        let second = try await ServerHarness(directory: first.directory, postgresURL: first.postgresURL)
        let bob = try await second.loggedIn(bobPhone)
        let alice = try await first.loggedIn(alicePhone)
        let bobsAlice = try await inputUser(1001, in: bob)   // the second process caches Alice
        guard case let .inputPeerUser(peer) = bobsAlice else { return }
        _ = try await send("hello", to: try await inputUser(1002, in: alice), from: alice)
        _ = try await bob.nextPush()
        _ = try await alice.call(API.functions.account.UpdateProfile(firstName: "Alicia"))
        guard let push = renamed(try await bob.nextPush()) else { Issue.record("no updateUserName from the other process"); return }
        #expect(push.seq == 1 && push.update.firstName == "Alicia" && push.users.map(firstName) == ["Alicia"])
        let users = try await bob.call(API.functions.users.GetUsers(id: [.inputUser(.init(userId: 1001, accessHash: peer.accessHash))]))
        #expect(users.first.flatMap(firstName) == "Alicia")
        await alice.close(); await bob.close()
        try await second.stop(removingData: false)
        try await first.stop()
    }
}

private func accessHash(_ id: Int64, in client: TestClient) async throws -> Int64 {
    guard case let .inputPeerUser(user) = try await inputUser(id, in: client) else { throw TestClientError.unexpected("no user") }
    return user.accessHash
}
