import Foundation
import Logging
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// Profiles in the client: `updateUserName` renames the stored user (the last of a batch wins; the logged-in user's
/// preference too when it is the one renamed), and through the Account API a new name, bio and username reach the
/// other account's store and the same account's second device.
@Suite(.timeLimit(.minutes(2)))
struct ProfileSyncTests {
    private static func storedUser(_ data: [UInt8]?) -> API.User.User? {
        guard let data, case let .user(user)? = try? API.User.deserialize(data) else { return nil }
        return user
    }

    private static func storedUser(_ peer: Peer?) -> UserPeer? {
        guard case let .user(user)? = peer else { return nil }
        return user
    }

    @Test func renamesMergeInTheBatchAndChangeTheStoredUserAndSelf() async throws {
        let (store, directory) = try AccountMutationTests.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (me, other) = (API.User.User(self: true, id: 7, accessHash: 1, firstName: "Me"),
                           API.User.User(id: 8, accessHash: 2, firstName: "Old", lastName: "Name", username: "old"))
        _ = try await store.transaction { transaction in
            try transaction.setPreference(Account.selfKey, API.User.user(me).serialized())
            try StoreMapping.store(StoreMapping.peers(users: [.user(me)], chats: []), in: transaction)
        }
        let rename = { (id: Int64, first: String, last: String, username: String?) in
            SequencerOutput.deliver(.updateUserName(.init(userId: id, firstName: first, lastName: last, usernames: username.map {
                [.username(.init(active: true, username: $0))]
            } ?? [])))
        }
        let mutation = AccountMutation([
            .entities(users: [.user(other)], chats: []),
            rename(8, "Interim", "", "interim"), rename(8, "New", "", nil),
            rename(7, "Me Too", "Here", "me_too"), rename(9, "Unknown", "", nil),
            .deliver(.updateUserStatus(.init(userId: 8, status: .userStatusOnline(.init(expires: 500))))),
            .deliver(.updateUserStatus(.init(userId: 8, status: .userStatusOffline(.init(wasOnline: 400))))),
        ], state: SyncState(pts: 1))
        #expect(mutation.renames.count == 3 && mutation.statuses.count == 1)
        _ = try await store.transaction { try mutation.apply($0) }
        let (renamed, mine, myself, unknown) = try await store.read { transaction in
            (Self.storedUser(try transaction.peer(StoreMapping.user(8))), Self.storedUser(try transaction.preference(Account.selfKey)),
             Self.storedUser(try transaction.peer(StoreMapping.user(7))), try transaction.peer(StoreMapping.user(9)))
        }
        #expect(renamed?.firstName == "New" && renamed?.lastName == "" && renamed?.username == nil && renamed?.accessHash == 2)
        #expect(renamed?.presence == .offline(wasOnline: 400), "the last status of the batch")
        #expect(mine?.firstName == "Me Too" && mine?.lastName == "Here" && mine?.username == "me_too" && mine?.`self` == true)
        #expect(myself?.firstName == "Me Too" && myself?.lastName == "Here" && myself?.username == "me_too"
                && myself?.flags.contains(.isSelf) == true)
        #expect(unknown == nil, "a user never stored stays unknown: there is no access hash to store")
    }

    @Test func aProfileChangeReachesTheOtherStoreAndTheSecondDevice() async throws {
        try await AccountTests.withServer("account-profile") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let aliceElsewhere = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice2", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let aliceID = try #require(await alice.user?.id)
            let alicePeer = StoreMapping.user(aliceID)
            try await alice.send("hi Bob", to: try await alice.resolve(username: "bob"))   // Bob has a dialog with Alice
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: bob.postbox, with: aliceID).contains { $0.text == "hi Bob" } })

            try await alice.setProfile(firstName: "Alicia", about: "tea and tests")
            let current = await alice.user
            #expect(current?.firstName == "Alicia")
            #expect(Self.storedUser(try await alice.postbox.read { try $0.peer(alicePeer) })?.firstName == "Alicia", "stored at once")
            #expect(try await TestWorld.eventually {
                Self.storedUser(try await bob.postbox.read { try $0.peer(alicePeer) })?.firstName == "Alicia"
            })
            #expect(try await TestWorld.eventually {
                Self.storedUser(try await aliceElsewhere.postbox.read { try $0.preference(Account.selfKey) })?.firstName == "Alicia"
            })
            #expect(try await bob.about(alicePeer) == "tea and tests")

            #expect(try await alice.isUsernameAvailable("carol") == false)
            try await alice.setUsername("wonderland")
            #expect(try await TestWorld.eventually {
                Self.storedUser(try await bob.postbox.read { try $0.peer(alicePeer) })?.username == "wonderland"
            })

            // Presence: Bob's presence view of Alice follows her status, live.
            var presences = bob.postbox.subscribe(PresencesView(peers: [alicePeer])).makeAsyncIterator()
            try await alice.setOnline(true)
            while true {
                guard let shown = try await presences.next() else { Issue.record("the view ended"); break }
                if case .online? = shown[alicePeer] { break }
            }
            try await alice.setOnline(false)
            while true {
                guard let shown = try await presences.next() else { Issue.record("the view ended"); break }
                if case .offline? = shown[alicePeer] { break }
            }
            if case .offline? = try await bob.presence(of: alicePeer) {} else { Issue.record("the stored presence") }
            for account in [alice, aliceElsewhere, bob] { await account.close() }
        }
    }

    /// Bob is offline while Alice renames herself: his reopened account learns it from the difference (its seq taken
    /// from the difference's state), and the next rename arrives live as the following seq, with no gap to wait out.
    @Test func aRenameWhileOfflineComesFromTheDifferenceAndTheNextFollowsLive() async throws {
        try await AccountTests.withServer("account-seq") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            var bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let alicePeer = StoreMapping.user(try #require(await alice.user?.id))
            try await alice.send("hi Bob", to: try await alice.resolve(username: "bob"))
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: bob.postbox, with: alicePeer.id).contains { $0.text == "hi Bob" } })
            try await bob.synced()
            let before = try #require(await bob.syncState?.seq)
            await bob.close()

            try await alice.setProfile(firstName: "Alicia")
            bob = try await Account.open(AccountTests.configuration(root + "/bob", server))
            #expect(try await TestWorld.eventually {
                Self.storedUser(try await bob.postbox.read { try $0.peer(alicePeer) })?.firstName == "Alicia"
            })
            try await bob.synced()
            #expect(await bob.syncState?.seq == before + 1)

            try await alice.setProfile(firstName: "Ali")
            #expect(try await TestWorld.eventually {
                Self.storedUser(try await bob.postbox.read { try $0.peer(alicePeer) })?.firstName == "Ali"
            })
            try await bob.synced()
            #expect(await bob.syncState?.seq == before + 2)
            #expect(await bob.differenceRequests == 1, "one difference at the start, none for the live rename")
            await alice.close(); await bob.close()
        }
    }
}
