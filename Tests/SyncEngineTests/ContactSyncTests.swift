import Foundation
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// Contacts and blocks in the client: the Account API keeps the contact list and the blocked users in the store as
/// typed rows, mutual flags follow the other side, and a block made on one device reaches the account's other device
/// as `updatePeerBlocked` (with seq) and its store.
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
            #expect(added.isMutual)
            let refreshed = try await alice.contacts()
            #expect(refreshed == [ContactEntry(peer: bobPeer, firstName: "Bobby", isMutual: true)], "the saved name, from the server")

            try await bob.block(alicePeer)
            #expect(try await bob.postbox.read { try $0.blockedPeers() } == [alicePeer])
            #expect(try await TestWorld.eventually { try await bobElsewhere.postbox.read { try $0.blockedPeers() } == [alicePeer] },
                    "the other device learns the block from updatePeerBlocked")
            #expect(try await bobElsewhere.blockedPeers() == [alicePeer])
            try await bob.unblock(alicePeer)
            #expect(try await TestWorld.eventually { try await bobElsewhere.postbox.read { try $0.blockedPeers() }.isEmpty })

            try await alice.deleteContacts([bobPeer])
            #expect(try await alice.postbox.read { try $0.contacts() }.isEmpty)
            #expect(try await bob.contacts().first?.isMutual == false)
            for account in [alice, bob, bobElsewhere] { await account.close() }
        }
    }
}
