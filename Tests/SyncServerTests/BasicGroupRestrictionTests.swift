import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// A basic group's default restrictions (`messages.editChatDefaultBannedRights` on an `inputPeerChat`,
/// core.telegram.org/api/rights), on both backends: the creator sets them, they bind every other member and not the
/// creator, each member learns them with their next seq (live and in a difference), and the group names them.
@Suite(.timeLimit(.minutes(2)))
struct BasicGroupRestrictionTests {
    @Test(arguments: StorageBackend.all) func defaultsBindEveryoneButTheCreator(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let (chatID, _) = try await createGroup("Rules", by: alice, members: [1002])
        let group = API.InputPeer.inputPeerChat(.init(chatId: chatID))
        let bobsOwn = try await send("before the rules", to: group, from: bob)
        let before = try await state(of: bob)

        // Alice refuses plain text, new titles, invitations and pins to everyone else.
        let rules = API.ChatBannedRights.chatBannedRights(.init(changeInfo: true, inviteUsers: true, pinMessages: true, sendPlain: true,
                                                                 untilDate: 0))
        let refused: BannedRights = [.changeInfo, .inviteUsers, .pinMessages, .sendPlain]
        guard case let .updates(answer) = try await alice.call(API.functions.messages.EditChatDefaultBannedRights(peer: group, bannedRights: rules)),
              case let .updateChatDefaultBannedRights(told)? = answer.updates.first, case let .chat(chat)? = answer.chats.first
        else { Issue.record("no updateChatDefaultBannedRights in the answer"); return }
        #expect(BannedRights(told.defaultBannedRights) == refused && chat.defaultBannedRights.map(BannedRights.init) == refused && chat.creator)

        // Bob's session is told with his next seq, and his state counts it.
        var pushedSeq: Int32?
        for _ in 0..<4 where pushedSeq == nil {
            if case let .updates(push) = try await bob.nextPush(), push.updates.contains(where: { $0.constructorName == "updateChatDefaultBannedRights" }) {
                pushedSeq = push.seq
            }
        }
        #expect(pushedSeq == before.seq + 1)
        #expect(try await state(of: bob).seq == before.seq + 1)
        // A device of Bob's that was away finds it among a difference's other updates.
        guard case let .difference(missed) = try await bob.call(API.functions.updates.GetDifference(pts: before.pts, date: before.date, qts: 0))
        else { Issue.record("no difference"); return }
        #expect(missed.otherUpdates.contains { update in
            if case let .updateChatDefaultBannedRights(value) = update { BannedRights(value.defaultBannedRights) == refused } else { false }
        })
        guard case let .state(after) = missed.state else { Issue.record("no state"); return }
        #expect(after.seq == before.seq + 1)

        // Bob is refused each, Alice is not; Bob's group names the defaults.
        await expectRPCError("CHAT_SEND_PLAIN_FORBIDDEN") { try await send("plain", to: group, from: bob) }
        await expectRPCError("CHAT_ADMIN_REQUIRED") { try await bob.call(API.functions.messages.EditChatTitle(chatId: chatID, title: "Mine")) }
        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await bob.call(API.functions.messages.AddChatUser(chatId: chatID, userId: try await inputUserValue(1003, in: bob), fwdLimit: 0))
        }
        await expectRPCError("CHAT_ADMIN_REQUIRED") { try await bob.call(API.functions.messages.UpdatePinnedMessage(peer: group, id: bobsOwn.id)) }
        await expectRPCError("CHAT_ADMIN_REQUIRED") { try await bob.call(API.functions.messages.UnpinAllMessages(peer: group)) }
        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await bob.call(API.functions.messages.EditChatDefaultBannedRights(peer: group, bannedRights: .chatBannedRights(.init(untilDate: 0))))
        }
        guard case let .chats(seen) = try await bob.call(API.functions.messages.GetChats(id: [chatID])), case let .chat(atBob)? = seen.chats.first
        else { Issue.record("no chat"); return }
        #expect(atBob.defaultBannedRights.map(BannedRights.init) == refused && !atBob.creator)
        _ = try await send("the creator writes", to: group, from: alice)
        _ = try await alice.call(API.functions.messages.EditChatTitle(chatId: chatID, title: "Alice's rules"))
        _ = try await alice.call(API.functions.messages.AddChatUser(chatId: chatID, userId: try await inputUserValue(1003, in: alice), fwdLimit: 0))

        // The same defaults again change nothing; view_messages is no default; lifted, Bob writes again.
        await expectRPCError("CHAT_NOT_MODIFIED") {
            try await alice.call(API.functions.messages.EditChatDefaultBannedRights(peer: group, bannedRights: rules))
        }
        await expectRPCError("BANNED_RIGHTS_INVALID") {
            try await alice.call(API.functions.messages.EditChatDefaultBannedRights(
                peer: group, bannedRights: .chatBannedRights(.init(viewMessages: true, untilDate: 0))))
        }
        _ = try await alice.call(API.functions.messages.EditChatDefaultBannedRights(peer: group, bannedRights: .chatBannedRights(.init(untilDate: 0))))
        _ = try await send("free again", to: group, from: bob)
        await expectRPCError("PEER_ID_INVALID") {
            try await alice.call(API.functions.messages.EditChatDefaultBannedRights(peer: try await inputUser(1002, in: alice), bannedRights: rules))
        }
        for client in [alice, bob] { await client.close() }
        try await harness.stop()
    }
}
