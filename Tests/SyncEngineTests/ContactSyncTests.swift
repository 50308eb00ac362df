import Foundation
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// Contacts and blocks in the client: the Account API keeps the contact list and the blocked users in the store as
/// typed rows, mutual flags follow the other side, and a block or a contact change made on one device reaches the
/// account's other device (`updatePeerBlocked`, `updatePeerSettings` with the user's contact flag, with seq) and its
/// store, live and after a catch-up.
@Suite(.timeLimit(.minutes(2)))
struct ContactSyncTests {
    @Test func blocksMergeInTheBatch() async throws {
        let (store, directory) = try AccountMutationTests.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let block = { (id: Int64, blocked: Bool) in
            SequencerOutput.deliver(.updatePeerBlocked(.init(blocked: blocked, peerId: .peerUser(.init(userId: id)))))
        }
        let mutation = AccountMutation([block(8, true), block(8, false), block(9, true)], state: SyncState(pts: 1))
        _ = try await store.transaction { try mutation.apply($0) }
        #expect(try await store.read { try $0.blockedPeers() } == [StoreMapping.user(9)], "blocked then unblocked: not blocked")
    }

    /// `updatePeerSettings` is read with the user sent with it: a contact under the saved name, or none; a change held
    /// back by a seq gap is read with its own container's user, not with one that came meanwhile.
    @Test func contactChangesAreReadWithTheirOwnUser() async throws {
        let (store, directory) = try AccountMutationTests.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func user(_ id: Int64, _ name: String, contact: Bool) -> API.User {
            .user(.init(contact: contact, id: id, accessHash: 7, firstName: name))
        }
        func change(_ id: Int64, seq: Int32, _ name: String, contact: Bool) -> API.Updates {
            .updates(.init(updates: [.updatePeerSettings(.init(peer: .peerUser(.init(userId: id)), settings: .peerSettings(.init(addContact: !contact))))],
                           users: [user(id, name, contact: contact)], chats: [], date: 100 + seq, seq: seq))
        }
        var sequencer = UpdateSequencer(state: SyncState(pts: 1, seq: 1, date: 100), configuration: .init(selfID: 1), now: 0)
        var outputs = sequencer.push(change(8, seq: 3, "Eight", contact: true), now: 0)       // waits for seq 2
        outputs += sequencer.push(.updates(.init(updates: [], users: [user(8, "Profile", contact: false)], chats: [], date: 101, seq: 0)), now: 0)
        outputs += sequencer.push(change(9, seq: 2, "Nine", contact: true), now: 0)        // fills the gap: 2, then 3
        #expect(sequencer.state.seq == 3)
        let mutation = AccountMutation(outputs, state: sequencer.state)
        _ = try await store.transaction { try mutation.apply($0) }
        #expect(try await store.read { try $0.contacts() }.sorted { $0.peer < $1.peer }
                == [ContactEntry(peer: StoreMapping.user(8), firstName: "Eight"), ContactEntry(peer: StoreMapping.user(9), firstName: "Nine")])
        let removal = AccountMutation(sequencer.push(change(9, seq: 4, "Nine", contact: false), now: 1), state: sequencer.state)
        _ = try await store.transaction { try removal.apply($0) }
        #expect(try await store.read { try $0.contacts() } == [ContactEntry(peer: StoreMapping.user(8), firstName: "Eight")])
    }

    @Test func contactsAndBlocksReachTheStoreAndTheSecondDevice() async throws {
        try await AccountTests.withServer("account-contacts") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let bobElsewhere = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob2", server)
            let bobPeer = try await alice.resolve(username: "bob")
            let alicePeer = try await bob.resolve(username: "alice")

            let imported = try await alice.importContacts([(phone: TestWorld.bobPhone, firstName: "Bobby", lastName: ""),
                                                           (phone: "+19990000", firstName: "Nobody", lastName: "")])
            #expect(imported == [bobPeer])
            #expect(try await alice.postbox.read { try $0.contacts() } == [ContactEntry(peer: bobPeer, firstName: "Bobby")])
            let added = try await bob.addContact(alicePeer, firstName: "Al")
            #expect(added == ContactEntry(peer: alicePeer, firstName: "Al"), "stored at once, before the server says it is mutual")
            #expect(try await TestWorld.eventually { try await bob.postbox.read { try $0.contacts() }.first?.isMutual == true },
                    "the server's answer says it is mutual")
            let refreshed = try await alice.contacts()
            #expect(refreshed == [ContactEntry(peer: bobPeer, firstName: "Bobby", isMutual: true)], "the saved name, from the server")

            try await bob.block(alicePeer)
            #expect(try await bob.postbox.read { try $0.blockedPeers() } == [alicePeer])
            #expect(try await TestWorld.eventually { try await bobElsewhere.postbox.read { try $0.blockedPeers() } == [alicePeer] },
                    "the other device learns the block from updatePeerBlocked")
            #expect(try await bobElsewhere.blockedPeers() == [alicePeer])
            try await bob.unblock(alicePeer)
            #expect(try await TestWorld.eventually { try await bobElsewhere.postbox.read { try $0.blockedPeers() }.isEmpty })

            // Bob's other device learns his contacts live, and after being away.
            #expect(try await TestWorld.eventually {
                try await bobElsewhere.postbox.read { try $0.contacts() } == [ContactEntry(peer: alicePeer, firstName: "Al", isMutual: true)]
            }, "the other device learns the contact from updatePeerSettings")
            try await bob.deleteContacts([alicePeer])
            #expect(try await TestWorld.eventually { try await bobElsewhere.postbox.read { try $0.contacts() }.isEmpty })
            await bobElsewhere.close()
            let carolPeer = try await bob.resolve(username: "carol")
            try await bob.addContact(carolPeer, firstName: "Caroline", lastName: "C")
            try await bob.addContact(alicePeer, firstName: "Alice", lastName: "L")
            try await bob.deleteContacts([carolPeer])
            let bobBack = try await Account.open(AccountTests.configuration(root + "/bob2", server))
            #expect(try await TestWorld.eventually {
                try await bobBack.postbox.read { try $0.contacts() } == [ContactEntry(peer: alicePeer, firstName: "Alice", lastName: "L", isMutual: true)]
            }, "after a catch-up: the difference's changes, read with the users as a contact sees them")

            try await alice.deleteContacts([bobPeer])
            #expect(try await alice.postbox.read { try $0.contacts() }.isEmpty)
            #expect(try await TestWorld.eventually { try await bob.contacts().first?.isMutual == false })
            for account in [alice, bob, bobBack] { await account.close() }
        }
    }
}
