import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

private func dialogPeers(_ dialogs: API.messages.Dialogs) -> [(peer: API.Peer, pinned: Bool)] {
    let list: [API.Dialog] = switch dialogs {
    case let .dialogs(value): value.dialogs
    case let .dialogsSlice(value): value.dialogs
    case .dialogsNotModified: []
    }
    return list.compactMap { if case let .dialog(d) = $0 { (d.peer, d.pinned) } else { nil } }
}

private func pinnedPeers(_ client: TestClient) async throws -> [API.Peer] {
    guard case let .peerDialogs(value) = try await client.call(API.functions.messages.GetPinnedDialogs(folderId: 0)) else { return [] }
    return value.dialogs.compactMap { if case let .dialog(d) = $0, d.pinned { d.peer } else { nil } }
}

private func dialogs(_ client: TestClient, excludePinned: Bool = false) async throws -> API.messages.Dialogs {
    try await client.call(API.functions.messages.GetDialogs(excludePinned: excludePinned, offsetDate: 0, offsetId: 0,
                                                            offsetPeer: .inputPeerEmpty(.init()), limit: 100, hash: 0))
}

private func toggle(_ peer: API.InputPeer, pinned: Bool = true, by client: TestClient) async throws -> Bool {
    try await client.call(API.functions.messages.ToggleDialogPin(pinned: pinned, peer: .inputDialogPeer(.init(peer: peer))))
}

/// The seq and update of a sequenced push.
private func sequenced(_ updates: API.Updates) -> (seq: Int32, update: API.Update)? {
    guard case let .updates(value) = updates, value.updates.count == 1 else { return nil }
    return (value.seq, value.updates[0])
}

/// Pinned dialogs on both backends: pin, unpin and reorder told to the caller's sessions with seq; getDialogs lists
/// them first (flagged) and not again, or not at all with `exclude_pinned`; getPinnedDialogs in their order;
/// Telegram's limit of five and refusals by name.
@Suite(.timeLimit(.minutes(2)))
struct DialogPinTests {
    @Test(arguments: StorageBackend.all) func pinsAreToldListedFirstAndBounded(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let aliceElsewhere = try await harness.loggedIn(alicePhone)
        let (bob, carol) = (try await inputUser(1002, in: alice), try await inputUser(1003, in: alice))
        await expectRPCError("PEER_ID_INVALID") { try await toggle(carol, by: alice) }   // no dialog with Carol yet
        _ = try await send("to Bob", to: bob, from: alice)
        _ = try await send("to Carol", to: carol, from: alice)
        try await receiveMessages(2, at: aliceElsewhere)
        let before = try await state(of: alice)

        #expect(try await toggle(bob, by: alice))
        for client in [alice, aliceElsewhere] {
            let push = sequenced(try await client.nextPush())
            guard case let .updateDialogPinned(pin)? = push?.update else { Issue.record("no updateDialogPinned"); continue }
            #expect(push?.seq == 1 && pin.pinned && pin.peer == .dialogPeer(.init(peer: .peerUser(.init(userId: 1002)))))
        }
        #expect(try await toggle(bob, by: alice), "pinned already: true, nothing told")
        let listed = dialogPeers(try await dialogs(alice))
        #expect(listed.first?.peer == .peerUser(.init(userId: 1002)) && listed.first?.pinned == true)
        #expect(listed.filter { $0.peer == .peerUser(.init(userId: 1002)) }.count == 1, "a pinned dialog is not listed again")
        #expect(listed.filter(\.pinned).count == 1)
        #expect(!dialogPeers(try await dialogs(alice, excludePinned: true)).contains { $0.peer == .peerUser(.init(userId: 1002)) })

        let news = peer(try await inputChannel("news", in: alice))
        #expect(try await toggle(news, by: alice))
        _ = try await alice.nextPush(); _ = try await aliceElsewhere.nextPush()
        #expect(try await pinnedPeers(alice) == [.peerChannel(.init(channelId: 2001)), .peerUser(.init(userId: 1002))], "newest pin first")

        #expect(try await alice.call(API.functions.messages.ReorderPinnedDialogs(folderId: 0, order: [.inputDialogPeer(.init(peer: bob))])))
        guard case let .updatePinnedDialogs(order)? = sequenced(try await aliceElsewhere.nextPush())?.update else {
            Issue.record("no updatePinnedDialogs"); return
        }
        #expect(order.order == [.dialogPeer(.init(peer: .peerUser(.init(userId: 1002)))), .dialogPeer(.init(peer: .peerChannel(.init(channelId: 2001))))])
        _ = try await alice.nextPush()
        #expect(try await pinnedPeers(alice) == [.peerUser(.init(userId: 1002)), .peerChannel(.init(channelId: 2001))])
        #expect(try await alice.call(API.functions.messages.ReorderPinnedDialogs(force: true, folderId: 0, order: [.inputDialogPeer(.init(peer: bob))])))
        _ = try await alice.nextPush(); _ = try await aliceElsewhere.nextPush()
        #expect(try await pinnedPeers(alice) == [.peerUser(.init(userId: 1002))], "force unpins the others")

        // The difference from before names each change, with the state's seq.
        guard case let .difference(difference) = try await aliceElsewhere.call(API.functions.updates.GetDifference(
            pts: before.pts, date: before.date, qts: 0)) else { Issue.record("no difference"); return }
        #expect(difference.otherUpdates.map(\.constructorName).filter { $0 != "updateChannelTooLong" } == ["updateDialogPinned", "updateDialogPinned", "updatePinnedDialogs",
                                                                   "updatePinnedDialogs"])
        if case let .state(final) = difference.state { #expect(final.seq == 4) }

        // Five at most.
        _ = try await send("note to self", to: .inputPeerSelf(.init()), from: alice)
        let lounge = peer(try await inputChannel("lounge", in: alice))
        for pinned in [carol, news, lounge, .inputPeerSelf(.init())] { #expect(try await toggle(pinned, by: alice)) }
        guard case let .invitedUsers(invited) = try await alice.call(API.functions.messages.CreateChat(
            users: [.inputUser(.init(userId: 1002, accessHash: { if case let .inputPeerUser(u) = bob { u.accessHash } else { 0 } }()))],
            title: "Sixth")), case let .updates(created) = invited.updates, case let .chat(group)? = created.chats.first
        else { Issue.record("no group"); return }
        await expectRPCError("PINNED_DIALOGS_TOO_MUCH") { try await toggle(.inputPeerChat(.init(chatId: group.id)), by: alice) }
        await expectRPCError("FOLDER_ID_INVALID") {
            try await alice.call(API.functions.messages.ReorderPinnedDialogs(folderId: 1, order: []))
        }
        #expect(try await toggle(bob, pinned: false, by: alice))
        #expect(try await pinnedPeers(alice).count == 4)
        for client in [alice, aliceElsewhere] { await client.close() }
        try await harness.stop()
    }
}
