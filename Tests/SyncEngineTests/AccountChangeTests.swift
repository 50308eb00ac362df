import Foundation
import Postbox
import Synchronization
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// Account changes through the operation log, against a real server: shown at once, merged while they wait, rolled
/// back and reported when refused; edits and deletes too. (Across a kill of the process: `OutboxCrashTests`.)
@Suite(.timeLimit(.minutes(2)))
struct AccountChangeTests {
    static func pending(_ account: Account) async throws -> Int {
        try await account.postbox.read { try $0.operations(tag: AccountChangeEntry.tag).count }
    }

    static func username(_ account: Account, _ peer: PeerID) async throws -> String? {
        guard case let .user(user)? = try await account.postbox.read({ try $0.peer(peer) }) else { return nil }
        return user.username
    }

    @Test func aRefusedChangeIsRolledBackAndReported() async throws {
        try await AccountTests.withServer("change-refused") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let alicePeer = StoreMapping.user(try #require(await alice.user?.id))
            let refusals = Mutex<[AccountEvent]>([])
            let events = alice.events
            let collector = Task { for await event in events { if case .changeRefused = event { refusals.withLock { $0.append(event) } } } }
            defer { collector.cancel() }

            // A taken username: shown at once, then put back when the server refuses it.
            await alice.network.setNetworkAvailable(false)
            try await alice.setUsername("carol")
            #expect(try await Self.username(alice, alicePeer) == "carol", "shown at once")
            await alice.network.setNetworkAvailable(true)
            #expect(try await TestWorld.eventually { refusals.withLock { $0.count } == 1 })
            #expect(refusals.withLock { $0 } == [.changeRefused(.username("carol"), error: "USERNAME_OCCUPIED")])
            #expect(try await Self.username(alice, alicePeer) == "alice", "rolled back in the transaction that ended the entry")
            #expect(try await Self.pending(alice) == 0)

            // An edit of Bob's message: refused, the stored text comes back.
            let bobPeer = try await alice.resolve(username: "bob")
            try await bob.send("bob wrote this", to: try await bob.resolve(username: "alice"))
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).count == 1 })
            let theirs = try #require(try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).first)
            try await alice.edit(theirs.id.id, in: bobPeer, text: "alice rewrote it")
            #expect(try await TestWorld.eventually { refusals.withLock { $0.count } == 2 })
            #expect(refusals.withLock { $0.last } == .changeRefused(.edit(theirs.id, text: "alice rewrote it"), error: "MESSAGE_AUTHOR_REQUIRED"))
            #expect(try await alice.postbox.read { try $0.message(theirs.id) }?.text == "bob wrote this")
            for account in [alice, bob] { await account.close() }
        }
    }

    @Test func aChangeUndoneBeforeItLeftSendsNothingAndLaterOnesReplaceEarlierOnes() async throws {
        try await AccountTests.withServer("change-merged") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bobPeer = try await alice.resolve(username: "bob")
            try await alice.send("pin me", to: bobPeer)
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).count == 1 })
            let mine = try #require(try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).first)
            try await alice.synced()

            await alice.network.setNetworkAvailable(false)
            try await alice.pin(mine.id.id, in: bobPeer)
            #expect(try await alice.postbox.read { try $0.message(mine.id) }?.tags.contains(StoreMapping.pinnedTag) == true)
            try await alice.pin(mine.id.id, in: bobPeer, unpin: true)
            #expect(try await Self.pending(alice) == 0, "pin then unpin before either left: nothing to send")
            for text in ["first", "second", "third"] { try await alice.saveDraft(text, in: bobPeer) }
            try await alice.pinChat(bobPeer)
            try await alice.pinChat(bobPeer, pinned: false)
            try await alice.pinChat(bobPeer)
            #expect(try await Self.pending(alice) == 2, "one draft, one dialog pin")
            await alice.network.setNetworkAvailable(true)
            #expect(try await TestWorld.eventually { try await Self.pending(alice) == 0 })
            try await alice.synced()
            #expect(try await alice.postbox.read { try $0.message(mine.id) }?.tags.contains(StoreMapping.pinnedTag) == false)

            // What the server has: the last draft, the chat pinned, no pinned message (read by a second device).
            let second = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice2", server)
            try await second.chatListFilled()
            #expect(try await second.postbox.read { try $0.draft(bobPeer) }?.text == "third")
            #expect(try await second.postbox.read { try $0.pinnedChats() } == [bobPeer])
            for account in [alice, second] { await account.close() }
        }
    }

    @Test func editsAndDeletesShowAtOnceAndReachTheOtherSide() async throws {
        try await AccountTests.withServer("change-edits") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let bobPeer = try await alice.resolve(username: "bob")
            let aliceID = try #require(await alice.user?.id)
            for text in ["keep", "typo", "gone"] { try await alice.send(text, to: bobPeer) }
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: bob.postbox, with: aliceID).count == 3 })
            // Bob can have all three before Alice's store has replaced its last local copy with the server's.
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).count == 3 })
            let sent = try await TestWorld.messages(in: alice.postbox, with: bobPeer.id)
            let typo = try #require(sent.first { $0.text == "typo" }), gone = try #require(sent.first { $0.text == "gone" })

            await alice.network.setNetworkAvailable(false)
            try await alice.edit(typo.id.id, in: bobPeer, text: "fixed")
            try await alice.delete([gone.id.id], in: bobPeer)
            #expect(try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).map(\.text).sorted() == ["fixed", "keep"], "at once")
            await alice.network.setNetworkAvailable(true)
            #expect(try await TestWorld.eventually {
                try await TestWorld.messages(in: bob.postbox, with: aliceID).map(\.text).sorted() == ["fixed", "keep"]
            })
            #expect(try await TestWorld.eventually { try await Self.pending(alice) == 0 })
            try await alice.synced()
            #expect(try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).map(\.text).sorted() == ["fixed", "keep"])
            for account in [alice, bob] { await account.close() }
        }
    }

    /// A list read from the server while a change to it waits in the log (here written as the log holds it) keeps the
    /// change shown: the server's list does not have it yet.
    @Test func aListReadFromTheServerKeepsTheChangesThatWait() async throws {
        let (postbox, directory) = try AccountMutationTests.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (carol, dave) = (StoreMapping.user(1003), StoreMapping.user(1004))
        _ = try await postbox.transaction { transaction in
            for change in [AccountChange.blocked(carol, true), .addContact(dave, firstName: "Dave", lastName: "")] {
                let before = try change.apply(to: transaction, selfID: 1001, date: 1)
                try transaction.appendOperation(peer: change.peers[0], tag: AccountChangeEntry.tag,
                                                contents: AccountChangeEntry(change: change, before: before).contents)
            }
        }
        let (blocked, contacts) = try await postbox.transaction { transaction in
            try transaction.replaceBlockedPeers([])                  // the server's lists, without the changes
            try transaction.replaceContacts([ContactEntry(peer: StoreMapping.user(1002), firstName: "Bob")])
            try transaction.reapplyWaitingChanges(selfID: 1001, date: 2) { $0.isBlock || $0.isContactChange }
            return (try transaction.blockedPeers(), try transaction.contacts().map(\.firstName))
        }.result
        #expect(blocked == [carol] && contacts == ["Bob", "Dave"])
    }
}
