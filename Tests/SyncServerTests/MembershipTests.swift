import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

private func participants(_ client: TestClient, _ channel: API.InputChannel, _ filter: API.ChannelParticipantsFilter = .channelParticipantsRecent(.init()))
    async throws -> (count: Int32, ids: [Int64], kinds: [String]) {
    guard case let .channelParticipants(list) = try await client.call(API.functions.channels.GetParticipants(
        channel: channel, filter: filter, offset: 0, limit: 100, hash: 0)) else { return (0, [], []) }
    let ids = list.participants.compactMap { participant -> Int64? in
        switch participant {
        case let .channelParticipant(v): v.userId
        case let .channelParticipantSelf(v): v.userId
        case let .channelParticipantCreator(v): v.userId
        case let .channelParticipantAdmin(v): v.userId
        case let .channelParticipantBanned(v): if case let .peerUser(u) = v.peer { u.userId } else { nil }
        case .channelParticipantLeft: nil
        }
    }
    return (list.count, ids, list.participants.map(\.constructorName))
}

/// The updates of a pushed or answered container (pushes that meet in a session's queue leave as one `updatesCombined`).
private func contents(_ updates: API.Updates) -> [API.Update] {
    switch updates {
    case let .updates(value): value.updates
    case let .updatesCombined(value): value.updates
    case let .updateShort(value): [value.update]
    default: []
    }
}

/// The service action of the new message of an `updates` (a channel's or a basic group's).
private func serviceAction(_ updates: API.Updates) -> String? {
    for update in contents(updates) {
        switch update {
        case let .updateNewChannelMessage(new): if case let .messageService(m) = new.message { return m.action.constructorName }
        case let .updateNewMessage(new): if case let .messageService(m) = new.message { return m.action.constructorName }
        default: continue
        }
    }
    return nil
}

/// Group and channel membership on both backends: participants by filter, admins promoted by the creator, kicks and
/// bans, titles and invitations in supergroups and basic groups, with their service messages and Telegram's
/// refusals.
@Suite(.timeLimit(.minutes(2)))
struct MembershipTests {
    @Test(arguments: StorageBackend.all) func channelParticipantsAdminsBansTitlesAndInvites(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        let lounge = try await inputChannel("lounge", in: alice)

        let all = try await participants(alice, lounge)
        #expect(all.count == 3 && Set(all.ids) == [1001, 1002, 1003])
        #expect(all.kinds.contains("channelParticipantCreator"))
        #expect(try await participants(alice, lounge, .channelParticipantsSearch(.init(q: "CAR"))).ids == [1003])
        #expect(try await participants(alice, lounge, .channelParticipantsAdmins(.init())).ids == [1001])
        #expect(try await participants(bob, try await inputChannel("lounge", in: bob)).count == 3, "a supergroup's members see the list")
        await expectRPCError("CHANNEL_PRIVATE") { try await participants(bob, try await inputChannel("news", in: bob)) }

        // The creator promotes Bob; a member cannot.
        let bobUser = try await inputUserValue(1002, in: alice)
        _ = try await alice.call(API.functions.channels.EditAdmin(channel: lounge, userId: bobUser, adminRights: AdminRights.standard.tl,
                                                                  rank: "helper"))
        #expect(contents(try await bob.nextPush()).first?.constructorName == "updateChannel", "Bob is told of his promotion")
        #expect(try await participants(alice, lounge, .channelParticipantsAdmins(.init())).ids.sorted() == [1001, 1002])
        let loungeAtCarol = try await inputChannel("lounge", in: carol)
        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await carol.call(API.functions.channels.EditAdmin(channel: loungeAtCarol, userId: try await inputUserValue(1002, in: carol),
                                                                  adminRights: .chatAdminRights(.init()), rank: nil))
        }

        // Bob, an admin, kicks Carol: she sees the service message and is out, listed as kicked, and cannot rejoin.
        let loungeAtBob = try await inputChannel("lounge", in: bob)
        let carolAtBob = try await inputUser(1003, in: bob)
        _ = try await bob.call(API.functions.channels.EditBanned(channel: loungeAtBob, participant: carolAtBob,
                                                                 bannedRights: ChannelParticipants.kickedRights))
        var carolSaw: [String] = []
        while !(carolSaw.contains("messageActionChatDeleteUser") && carolSaw.contains("updateChannel")) {
            let pushed = try await carol.nextPush()
            carolSaw += contents(pushed).map(\.constructorName) + [serviceAction(pushed)].compactMap { $0 }
        }
        #expect(try await participants(alice, lounge, .channelParticipantsKicked(.init(q: ""))).ids == [1003])
        #expect(try await participants(alice, lounge).count == 2)
        await expectRPCError("CHANNEL_PRIVATE") { try await carol.call(API.functions.channels.JoinChannel(channel: loungeAtCarol)) }
        await expectRPCError("USER_ADMIN_INVALID") {
            try await bob.call(API.functions.channels.EditBanned(channel: loungeAtBob, participant: try await inputUser(1001, in: bob),
                                                                 bannedRights: ChannelParticipants.kickedRights))
        }
        _ = try await bob.call(API.functions.channels.EditBanned(channel: loungeAtBob, participant: carolAtBob,
                                                                 bannedRights: .chatBannedRights(.init(untilDate: 0))))
        _ = try await carol.call(API.functions.channels.JoinChannel(channel: loungeAtCarol))
        #expect(try await participants(alice, lounge).count == 3, "unbanned, Carol joined again")

        // Titles: an admin's change is a service message; a member's is refused.
        guard case let .updates(retitled) = try await bob.call(API.functions.channels.EditTitle(channel: loungeAtBob, title: "Salon")) else {
            Issue.record("no title answer"); return
        }
        #expect(serviceAction(.updates(retitled)) == "messageActionChatEditTitle")
        await expectRPCError("CHAT_ADMIN_REQUIRED") { try await carol.call(API.functions.channels.EditTitle(channel: loungeAtCarol, title: "Mine")) }
        await expectRPCError("CHAT_NOT_MODIFIED") { try await bob.call(API.functions.channels.EditTitle(channel: loungeAtBob, title: "Salon")) }

        // Full channel: counts.
        guard case let .chatFull(full) = try await alice.call(API.functions.channels.GetFullChannel(channel: lounge)),
              case let .channelFull(details) = full.fullChat else { Issue.record("no full channel"); return }
        #expect(details.participantsCount == 3 && details.adminsCount == 2 && details.kickedCount == 0 && details.canViewParticipants)

        // Invitations into a new supergroup.
        guard case let .updates(created) = try await alice.call(API.functions.channels.CreateChannel(megagroup: true, title: "Planning", about: "")),
              case let .channel(planning)? = created.chats.first, let hash = planning.accessHash else { Issue.record("create"); return }
        let planningInput = API.InputChannel.inputChannel(.init(channelId: planning.id, accessHash: hash))
        guard case let .invitedUsers(invited) = try await alice.call(API.functions.channels.InviteToChannel(channel: planningInput, users: [bobUser])) else {
            Issue.record("no invitation"); return
        }
        #expect(serviceAction(invited.updates) == "messageActionChatAddUser")
        #expect(try await participants(alice, planningInput).count == 2)
        for client in [alice, bob, carol] { await client.close() }
        try await harness.stop()
    }

    /// The seq and member count of the `updateChatParticipants` in `first` or in the next pushes of `client` (a push
    /// that follows another closely may leave merged with it, in one `updatesCombined`).
    private func memberList(in first: API.Updates, orNextOf client: TestClient) async throws -> (seq: Int32, count: Int)? {
        var push = first
        for _ in 0..<3 {
            for case let .updateChatParticipants(update) in contents(push) {
                guard case let .chatParticipants(list) = update.participants else { return nil }
                let seq: Int32 = switch push {
                case let .updates(value): value.seq
                case let .updatesCombined(value): value.seq
                default: 0
                }
                return (seq, list.participants.count)
            }
            push = try await client.nextPush()
        }
        return nil
    }

    @Test(arguments: StorageBackend.all) func basicGroupMembersAndTitles(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        guard case let .invitedUsers(invited) = try await alice.call(API.functions.messages.CreateChat(
            users: [try await inputUserValue(1002, in: alice)], title: "Trio")), case let .updates(created) = invited.updates,
              case let .chat(group)? = created.chats.first else { Issue.record("no group"); return }
        _ = try await bob.nextPush()

        guard case let .invitedUsers(added) = try await alice.call(API.functions.messages.AddChatUser(
            chatId: group.id, userId: try await inputUserValue(1003, in: alice), fwdLimit: 0)) else { Issue.record("no add"); return }
        #expect(serviceAction(added.updates) == "messageActionChatAddUser")
        let carolsPush = try await carol.nextPush()
        #expect(serviceAction(carolsPush) == "messageActionChatAddUser", "the new member sees the service message")
        let carolsList = try await memberList(in: carolsPush, orNextOf: carol)
        #expect(carolsList?.count == 3 && carolsList?.seq == 1, "and every member the new list, with their next seq")
        #expect(try await memberList(in: try await bob.nextPush(), orNextOf: bob)?.count == 3)
        guard case let .chatFull(full) = try await carol.call(API.functions.messages.GetFullChat(chatId: group.id)),
              case let .chatFull(details) = full.fullChat, case let .chatParticipants(members) = details.participants else {
            Issue.record("no full chat"); return
        }
        #expect(members.participants.count == 3 && members.version == 2)

        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await bob.call(API.functions.messages.DeleteChatUser(chatId: group.id, userId: try await inputUserValue(1003, in: bob)))
        }
        _ = try await alice.call(API.functions.messages.DeleteChatUser(chatId: group.id, userId: try await inputUserValue(1003, in: alice)))
        #expect(serviceAction(try await carol.nextPush()) == "messageActionChatDeleteUser", "the removed member sees it too")
        await expectRPCError("PEER_ID_INVALID") { try await carol.call(API.functions.messages.GetFullChat(chatId: group.id)) }
        let bobsList = try await memberList(in: try await bob.nextPush(), orNextOf: bob)
        #expect(bobsList?.count == 2 && bobsList?.seq == 2)
        guard case let .difference(missed) = try await bob.call(API.functions.updates.GetDifference(pts: 1, date: 1, qts: 0)) else {
            Issue.record("no difference"); return
        }
        #expect(missed.otherUpdates.filter { $0.constructorName == "updateChatParticipants" }.count == 2, "a difference lists both")

        #expect(serviceAction(try await alice.call(API.functions.messages.EditChatTitle(chatId: group.id, title: "Duo"))) == "messageActionChatEditTitle")
        await expectRPCError("CHAT_NOT_MODIFIED") { try await bob.call(API.functions.messages.EditChatTitle(chatId: group.id, title: "Duo")) }
        _ = try await bob.call(API.functions.messages.DeleteChatUser(chatId: group.id, userId: .inputUserSelf(.init())))
        await expectRPCError("PEER_ID_INVALID") { try await bob.call(API.functions.messages.GetFullChat(chatId: group.id)) }
        for client in [alice, bob, carol] { await client.close() }
        try await harness.stop()
    }
}
