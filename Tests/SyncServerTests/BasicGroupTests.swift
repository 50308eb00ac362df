import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Alice creates a group with `members`; returns its id.
func createGroup(_ title: String, by alice: TestClient, members: [Int64]) async throws -> (chatID: Int64, result: API.Updates) {
    var inputs: [API.InputUser] = []
    for id in members {
        guard case let .inputPeerUser(user) = try await inputUser(id, in: alice) else { throw TestClientError.unexpected("peer") }
        inputs.append(.inputUser(.init(userId: user.userId, accessHash: user.accessHash)))
    }
    guard case let .invitedUsers(invited) = try await alice.call(API.functions.messages.CreateChat(users: inputs, title: title)),
          case let .updates(updates) = invited.updates, case let .chat(chat)? = updates.chats.first
    else { throw TestClientError.unexpected("createChat") }
    return (chat.id, invited.updates)
}

private func messages(_ result: API.messages.Messages) -> [API.Message] {
    switch result {
    case let .messages(value): value.messages
    case let .messagesSlice(value): value.messages
    default: []
    }
}

@Suite(.timeLimit(.minutes(2)))
struct BasicGroupTests {
    /// Creation puts a service message in every member's box; a message is one copy per member, each moving that
    /// member's pts by one, pushed as `updateShortChatMessage`; history, dialogs and differences name the group.
    @Test(arguments: StorageBackend.all) func aGroupMessageIsACopyInEveryMembersBox(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        _ = try await state(of: bob)

        let (chatID, created) = try await createGroup("Weekend", by: alice, members: [1002, 1003])
        guard case let .updates(result) = created, case let .updateNewMessage(service)? = result.updates.first,
              case let .messageService(action) = service.message, case let .messageActionChatCreate(create) = action.action
        else { Issue.record("no service message in \(created)"); return }
        #expect(create.title == "Weekend" && create.users == [1001, 1002, 1003] && service.pts == 1 && action.out)
        guard case let .updates(atBob) = try await bob.nextPush(), case let .updateNewMessage(bobService)? = atBob.updates.first,
              case .messageService = bobService.message, case let .chat(chat)? = atBob.chats.first
        else { Issue.record("no creation push to Bob"); return }
        #expect(chat.id == chatID && chat.participantsCount == 3 && !chat.creator && bobService.pts == 1)

        let group = API.InputPeer.inputPeerChat(.init(chatId: chatID))
        _ = try await state(of: alice)
        let sent = try await send("hello group", to: group, from: bob)
        #expect(sent.pts == 2 && sent.out)
        guard case let .updateShortChatMessage(atAlice) = try await alice.nextPush() else { Issue.record("no push to Alice"); return }
        #expect(atAlice.message == "hello group" && atAlice.fromId == 1002 && atAlice.chatId == chatID && !atAlice.out)
        #expect(atAlice.pts == 2 && atAlice.ptsCount == 1)
        #expect(try await state(of: carol).pts == 2)

        guard case let .messages(history) = try await carol.call(API.functions.messages.GetHistory(
            peer: group, offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0))
        else { Issue.record("history"); return }
        #expect(history.messages.count == 2 && history.chats.count == 1)
        let userIDs = Set(history.users.compactMap { user -> Int64? in if case let .user(u) = user { u.id } else { nil } })
        #expect(userIDs.isSuperset(of: [1001, 1002, 1003] as Set<Int64>))

        guard case let .difference(difference) = try await carol.call(API.functions.updates.GetDifference(pts: 0, date: 0, qts: 0))
        else { Issue.record("difference"); return }
        #expect(difference.newMessages.count == 2 && difference.chats.contains { if case let .chat(c) = $0 { c.id == chatID } else { false } })

        let dialogs = try await carol.call(API.functions.messages.GetDialogs(offsetDate: 0, offsetId: 0, offsetPeer: .inputPeerEmpty(.init()),
                                                                              limit: 20, hash: 0))
        guard case let .dialogs(list) = dialogs else { Issue.record("dialogs: \(dialogs.constructorName)"); return }
        let chatDialog = list.dialogs.first { dialog in
            if case let .dialog(d) = dialog, case let .peerChat(p) = d.peer { return p.chatId == chatID }
            return false
        }
        guard case let .dialog(found)? = chatDialog else { Issue.record("no dialog for the group"); return }
        #expect(found.unreadCount == 2 && list.chats.contains { if case let .chat(c) = $0 { c.id == chatID } else { false } })
        for client in [alice, bob, carol] { await client.close() }
        try await harness.stop()
    }

    /// A read moves the reader's inbox and every sender's outbox (in the sender's own ids); an edit and a revoking
    /// delete reach every member's copy; outsiders can neither write nor read.
    @Test(arguments: StorageBackend.all) func readsEditsDeletesAndOutsiders(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        let (chatID, _) = try await createGroup("Pair", by: alice, members: [1002])
        let group = API.InputPeer.inputPeerChat(.init(chatId: chatID))
        _ = try await bob.nextPush()   // the creation message
        let sent = try await send("from bob", to: group, from: bob)

        guard case let .affectedMessages(read) = try await alice.call(API.functions.messages.ReadHistory(peer: group, maxId: 0))
        else { Issue.record("read"); return }
        #expect(read.ptsCount == 1)
        guard case let .updateShort(short) = try await bob.nextPush(), case let .updateReadHistoryOutbox(outbox) = short.update,
              case let .peerChat(peer) = outbox.peer
        else { Issue.record("no outbox read for Bob"); return }
        #expect(peer.chatId == chatID && outbox.maxId == sent.id)

        _ = try await bob.call(API.functions.messages.EditMessage(peer: group, id: sent.id, message: "edited"))
        let aliceHistory = messages(try await alice.call(API.functions.messages.GetHistory(
            peer: group, offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0)))
        #expect(aliceHistory.contains { if case let .message(m) = $0 { m.message == "edited" && m.editDate != nil } else { false } })

        _ = try await bob.call(API.functions.messages.DeleteMessages(revoke: true, id: [sent.id]))
        let afterDelete = messages(try await alice.call(API.functions.messages.GetHistory(
            peer: group, offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0)))
        #expect(afterDelete.count == 1)   // only the creation message is left

        await expectRPCError("PEER_ID_INVALID") { try await send("let me in", to: group, from: carol) }
        await expectRPCError("PEER_ID_INVALID") {
            try await carol.call(API.functions.messages.GetHistory(peer: group, offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10,
                                                                   maxId: 0, minId: 0, hash: 0))
        }
        guard case let .chats(visible) = try await carol.call(API.functions.messages.GetChats(id: [chatID])) else { return }
        #expect(visible.chats.isEmpty)
        await expectRPCError("CHAT_TITLE_EMPTY") { try await createGroup("  ", by: alice, members: [1002]) }
        for client in [alice, bob, carol] { await client.close() }
        try await harness.stop()
    }
}
