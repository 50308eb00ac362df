import Foundation
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// Pinned chats in the client: the server's pin changes apply in order to the stored pinned chats, and a pin made on
/// one device reaches the account's other device's chat list.
@Suite(.timeLimit(.minutes(2)))
struct DialogPinSyncTests {
    @Test func pinChangesApplyInTheirOrder() {
        let (a, b, c) = (StoreMapping.user(1), StoreMapping.user(2), StoreMapping.channel(3))
        #expect(DialogPinChange.apply([.toggle(a, pinned: true), .toggle(b, pinned: true)], to: []) == [b, a], "newest pin first")
        #expect(DialogPinChange.apply([.toggle(a, pinned: true), .toggle(a, pinned: false)], to: [c]) == [c], "pin then unpin: nothing")
        #expect(DialogPinChange.apply([.order([c, a]), .toggle(b, pinned: true)], to: [a]) == [b, c, a])
    }

    @Test func aPinReachesTheOtherDevicesChatList() async throws {
        try await AccountTests.withServer("account-dialog-pins") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let aliceElsewhere = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice2", server)
            let bobPeer = try await alice.resolve(username: "bob")
            _ = try await alice.send("hi", to: bobPeer)
            #expect(try await TestWorld.eventually { try await aliceElsewhere.postbox.read { try $0.chatListEntry(bobPeer) } != nil })

            try await alice.pinChat(bobPeer)
            #expect(try await alice.postbox.read { try $0.pinnedChats() } == [bobPeer])
            #expect(try await TestWorld.eventually {
                try await aliceElsewhere.postbox.read { try $0.chatList(limit: 10).first }?.pinnedIndex == 0
            }, "the other device learns the pin from updateDialogPinned and shows the chat first")
            try await alice.pinChat(bobPeer, pinned: false)
            #expect(try await TestWorld.eventually { try await aliceElsewhere.postbox.read { try $0.pinnedChats() }.isEmpty })
            for account in [alice, aliceElsewhere] { await account.close() }
        }
    }
}
