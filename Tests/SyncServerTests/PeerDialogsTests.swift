import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// `messages.getPeerDialogs` on both backends: the named peers' dialogs as `getDialogs` renders them (a private chat
/// with its unread count, a channel with its pts), a peer without a dialog left out, the caller's state, and folders
/// refused.
@Suite(.timeLimit(.minutes(2)))
struct PeerDialogsTests {
    @Test(arguments: StorageBackend.all) func namedDialogsWithTheirStateAndFoldersRefused(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        for text in ["one", "two"] { _ = try await send(text, to: try await inputUser(1002, in: alice), from: alice) }
        let (fromAlice, toCarol) = (try await inputUser(1001, in: bob), try await inputUser(1003, in: bob))
        let lounge = peer(try await inputChannel("lounge", in: bob))
        guard case let .peerDialogs(found) = try await bob.call(API.functions.messages.GetPeerDialogs(peers: [
            .inputDialogPeer(.init(peer: fromAlice)), .inputDialogPeer(.init(peer: toCarol)), .inputDialogPeer(.init(peer: lounge)),
        ])) else { return }
        let dialogs = found.dialogs.compactMap { if case let .dialog(value) = $0 { value } else { nil } }
        #expect(dialogs.count == 2, "Bob has no dialog with Carol")
        let private_ = try #require(dialogs.first { $0.peer == .peerUser(.init(userId: 1001)) })
        #expect(private_.unreadCount == 2 && private_.pts == nil)
        let channel = try #require(dialogs.first { if case .peerChannel = $0.peer { true } else { false } })
        #expect((channel.pts ?? 0) >= 1)
        #expect(found.messages.count == 2 && found.users.contains { if case let .user(user) = $0 { user.id == 1001 } else { false } })
        let current = try await state(of: bob)
        guard case let .state(answered) = found.state else { return }
        #expect(answered.pts == current.pts && answered.unreadCount >= 2)
        await expectRPCError("PEER_ID_INVALID") {
            try await bob.call(API.functions.messages.GetPeerDialogs(peers: [.inputDialogPeerFolder(.init(folderId: 1))]))
        }
        await alice.close(); await bob.close()
        try await harness.stop()
    }
}
