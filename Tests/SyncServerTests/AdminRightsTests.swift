import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// The channel object in `updates` (an answer or a push), as the receiver is meant to take it.
private func channelObject(in updates: API.Updates) -> API.Chat.Channel? {
    let chats: [API.Chat] = switch updates {
    case let .updates(value): value.chats
    case let .updatesCombined(value): value.chats
    default: []
    }
    for case let .channel(channel) in chats { return channel }
    return nil
}

/// The channel object of the first of `client`'s next pushes that carries one and an update `match` accepts.
private func pushedChannel(_ client: TestClient, where match: (API.Update) -> Bool) async throws -> API.Chat.Channel? {
    for _ in 0..<8 {
        let push = try await client.nextPush()
        let updates: [API.Update] = switch push {
        case let .updates(value): value.updates
        case let .updatesCombined(value): value.updates
        default: []
        }
        if updates.contains(where: match), let channel = channelObject(in: push) { return channel }
    }
    return nil
}

/// The pushed channel object that came with the post `text`.
private func pushedChannel(_ client: TestClient, withPost text: String) async throws -> API.Chat.Channel? {
    try await pushedChannel(client) { update in
        guard case let .updateNewChannelMessage(new) = update, case let .message(message) = new.message else { return false }
        return message.message == text
    }
}

/// The admins of a channel as `client` lists them, by user id.
private func admins(_ client: TestClient, _ channel: API.InputChannel) async throws -> [Int64: API.ChannelParticipant.ChannelParticipantAdmin] {
    guard case let .channelParticipants(list) = try await client.call(API.functions.channels.GetParticipants(
        channel: channel, filter: .channelParticipantsAdmins(.init()), offset: 0, limit: 100, hash: 0)) else { return [:] }
    var found: [Int64: API.ChannelParticipant.ChannelParticipantAdmin] = [:]
    for case let .channelParticipantAdmin(admin) in list.participants { found[admin.userId] = admin }
    return found
}

/// Admin rights one by one (core.telegram.org/api/rights), on both backends: each action needs its right, an admin
/// holding `add_admins` grants only what they hold and edits only whom they promoted, ranks are checked, and every
/// channel object a member receives — answers and pushes — carries that member's own standing.
@Suite(.timeLimit(.minutes(2)))
struct AdminRightsTests {
    @Test(arguments: StorageBackend.all) func eachActionNeedsItsRightAndEveryChannelObjectCarriesTheViewersStanding(
        backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        let (atAlice, atBob, atCarol) = (try await inputChannel("lounge", in: alice), try await inputChannel("lounge", in: bob),
                                         try await inputChannel("lounge", in: carol))
        let carolsPost = try await post("by Carol", to: atCarol, from: carol)
        let alicesPost = try await post("by Alice", to: atAlice, from: alice)

        // Alice (the creator) makes Bob an admin who may pin, invite and add admins, titled "Pinner".
        let pinner: AdminRights = [.pinMessages, .inviteUsers, .addAdmins]
        let promoted = try await alice.call(API.functions.channels.EditAdmin(
            channel: atAlice, userId: try await inputUserValue(1002, in: alice), adminRights: pinner.tl, rank: "Pinner"))
        #expect(channelObject(in: promoted)?.creator == true && channelObject(in: promoted)?.adminRights?.flagsWord == AdminRights.creator.rawValue)
        let bobSees = try await pushedChannel(bob) { $0.constructorName == "updateChannel" }
        #expect(bobSees?.adminRights?.flagsWord == pinner.rawValue && bobSees?.creator == false, "Bob's push names his rights")
        let listed = try await admins(alice, atAlice)[1002]
        #expect(listed?.adminRights.flagsWord == pinner.rawValue && listed?.rank == "Pinner" && listed?.promotedBy == 1001 && listed?.canEdit == true)

        // What Bob may do, and what he may not.
        _ = try await bob.call(API.functions.messages.UpdatePinnedMessage(peer: peer(atBob), id: carolsPost.id))
        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await bob.call(API.functions.channels.EditBanned(channel: atBob, participant: try await inputUser(1003, in: bob),
                                                                 bannedRights: ChannelParticipants.kickedRights))
        }
        await expectRPCError("CHAT_ADMIN_REQUIRED") { try await bob.call(API.functions.channels.EditTitle(channel: atBob, title: "Mine")) }
        await expectRPCError("MESSAGE_DELETE_FORBIDDEN") {
            try await bob.call(API.functions.channels.DeleteMessages(channel: atBob, id: [carolsPost.id]))
        }
        await expectRPCError("MESSAGE_AUTHOR_REQUIRED") {
            try await bob.call(API.functions.messages.EditMessage(peer: peer(atBob), id: alicesPost.id, message: "edited by Bob"))
        }

        // Bob promotes Carol: only with rights he holds, and only she is his to edit; nobody edits the creator.
        let carolAtBob = try await inputUserValue(1003, in: bob)
        await expectRPCError("RIGHT_FORBIDDEN") {
            try await bob.call(API.functions.channels.EditAdmin(channel: atBob, userId: carolAtBob,
                                                                adminRights: AdminRights([.pinMessages, .banUsers]).tl, rank: nil))
        }
        await expectRPCError("ADMIN_RANK_INVALID") {
            try await bob.call(API.functions.channels.EditAdmin(channel: atBob, userId: carolAtBob, adminRights: AdminRights.pinMessages.tl,
                                                                rank: String(repeating: "r", count: 17)))
        }
        await expectRPCError("ADMIN_RANK_EMOJI_NOT_ALLOWED") {
            try await bob.call(API.functions.channels.EditAdmin(channel: atBob, userId: carolAtBob, adminRights: AdminRights.pinMessages.tl,
                                                                rank: "Pin 📌"))
        }
        _ = try await bob.call(API.functions.channels.EditAdmin(channel: atBob, userId: carolAtBob, adminRights: AdminRights.pinMessages.tl,
                                                                rank: String(repeating: "é", count: 16)))
        let carolListed = try await admins(bob, atBob)[1003]
        #expect(carolListed?.promotedBy == 1002 && carolListed?.canEdit == true && carolListed?.rank == String(repeating: "é", count: 16))
        #expect(try await admins(carol, atCarol)[1003]?.canEdit == false, "Carol cannot edit herself")
        await expectRPCError("USER_CREATOR") {
            try await bob.call(API.functions.channels.EditAdmin(channel: atBob, userId: try await inputUserValue(1001, in: bob),
                                                                adminRights: .chatAdminRights(.init()), rank: nil))
        }
        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await carol.call(API.functions.channels.EditAdmin(channel: atCarol, userId: try await inputUserValue(1002, in: carol),
                                                                  adminRights: .chatAdminRights(.init()), rank: nil))
        }

        // A post's pushes carry the channel as each member stands: Alice the creator, Bob and Carol their rights.
        try await post("standing", to: atAlice, from: alice)
        #expect(try await pushedChannel(bob, withPost: "standing")?.adminRights?.flagsWord == pinner.rawValue)
        let carolPush = try await pushedChannel(carol, withPost: "standing")
        #expect(carolPush?.adminRights?.flagsWord == AdminRights.pinMessages.rawValue && carolPush?.creator == false)
        try await post("again", to: atCarol, from: carol)
        let alicePush = try await pushedChannel(alice, withPost: "again")
        #expect(alicePush?.creator == true && alicePush?.adminRights?.flagsWord == AdminRights.creator.rawValue)

        // Bob demotes Carol (he promoted her); her next channel object names no rights, and she may no longer pin.
        _ = try await bob.call(API.functions.channels.EditAdmin(channel: atBob, userId: carolAtBob, adminRights: .chatAdminRights(.init()),
                                                                rank: nil))
        #expect(try await admins(alice, atAlice)[1003] == nil)
        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await carol.call(API.functions.messages.UpdatePinnedMessage(peer: peer(atCarol), id: alicesPost.id))
        }
        for client in [alice, bob, carol] { await client.close() }
        try await harness.stop()
    }

    /// A member's own restrictions and a supergroup's defaults (core.telegram.org/api/rights), on both backends: a
    /// restricted member stays, is listed as restricted and may not write; the defaults bind every plain member but
    /// not admins; each is told with the channel as they now see it, and later pushes keep naming it.
    @Test(arguments: StorageBackend.all) func restrictionsAndDefaultsBindPlainMembers(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        let (atAlice, atBob, atCarol) = (try await inputChannel("lounge", in: alice), try await inputChannel("lounge", in: bob),
                                         try await inputChannel("lounge", in: carol))
        let mute = API.ChatBannedRights.chatBannedRights(.init(sendMessages: true, untilDate: 0))

        // Alice mutes Carol: Carol is told, may not write, and is listed among the restricted, still a member.
        _ = try await alice.call(API.functions.channels.EditBanned(channel: atAlice, participant: try await inputUser(1003, in: alice),
                                                                   bannedRights: mute))
        let carolTold = try await pushedChannel(carol) { $0.constructorName == "updateChannel" }
        #expect(carolTold?.bannedRights?.flagsWord == BannedRights.sendMessages.rawValue && carolTold?.left == false)
        await expectRPCError("CHAT_WRITE_FORBIDDEN") { try await post("muted", to: atCarol, from: carol) }
        guard case let .channelParticipants(restricted) = try await alice.call(API.functions.channels.GetParticipants(
            channel: atAlice, filter: .channelParticipantsBanned(.init(q: "")), offset: 0, limit: 10, hash: 0)),
              case let .channelParticipantBanned(listed)? = restricted.participants.first else { Issue.record("no restricted list"); return }
        #expect(restricted.count == 1 && listed.peer == .peerUser(.init(userId: 1003)) && !listed.left && listed.kickedBy == 1001)
        guard case let .chatFull(full) = try await alice.call(API.functions.channels.GetFullChannel(channel: atAlice)),
              case let .channelFull(details) = full.fullChat else { Issue.record("no full channel"); return }
        #expect(details.participantsCount == 3 && details.bannedCount == 1 && details.kickedCount == 0)
        await expectRPCError("USER_ADMIN_INVALID") {
            try await alice.call(API.functions.channels.EditBanned(channel: atAlice, participant: try await inputUser(1001, in: alice),
                                                                   bannedRights: mute))
        }
        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await bob.call(API.functions.channels.EditBanned(channel: atBob, participant: try await inputUser(1003, in: bob),
                                                                 bannedRights: .chatBannedRights(.init(untilDate: 0))))
        }
        // Bob's post reaches Carol with the channel as she stands: muted.
        try await post("to the muted", to: atBob, from: bob)
        #expect(try await pushedChannel(carol, withPost: "to the muted")?.bannedRights?.flagsWord == BannedRights.sendMessages.rawValue)

        // Lifted, she writes again.
        _ = try await alice.call(API.functions.channels.EditBanned(channel: atAlice, participant: try await inputUser(1003, in: alice),
                                                                   bannedRights: .chatBannedRights(.init(untilDate: 0))))
        try await post("free again", to: atCarol, from: carol)

        // Carol may not pin: a restriction that leaves her writing.
        let noPins = API.ChatBannedRights.chatBannedRights(.init(pinMessages: true, untilDate: 0))
        _ = try await alice.call(API.functions.channels.EditBanned(channel: atAlice, participant: try await inputUser(1003, in: alice),
                                                                   bannedRights: noPins))

        // Defaults: no plain text from plain members; the creator still writes; the same defaults again change nothing.
        // Each member is told with the channel as they stand: Bob plainly, Carol with her own restriction too.
        let plain = API.ChatBannedRights.chatBannedRights(.init(sendPlain: true, untilDate: 0))
        let answer = try await alice.call(API.functions.messages.EditChatDefaultBannedRights(peer: peer(atAlice), bannedRights: plain))
        #expect(channelObject(in: answer)?.defaultBannedRights?.flagsWord == BannedRights.sendPlain.rawValue)
        let bobTold = try await pushedChannel(bob) { $0.constructorName == "updateChannel" }
        #expect(bobTold?.defaultBannedRights?.flagsWord == BannedRights.sendPlain.rawValue && bobTold?.bannedRights == nil)
        var carolSees: API.Chat.Channel?
        for _ in 0..<3 where carolSees?.defaultBannedRights?.flagsWord != BannedRights.sendPlain.rawValue {
            carolSees = try await pushedChannel(carol) { $0.constructorName == "updateChannel" }
        }
        #expect(carolSees?.defaultBannedRights?.flagsWord == BannedRights.sendPlain.rawValue
            && carolSees?.bannedRights?.flagsWord == BannedRights.pinMessages.rawValue)
        await expectRPCError("CHAT_SEND_PLAIN_FORBIDDEN") { try await post("plain", to: atBob, from: bob) }
        try await post("the creator writes", to: atAlice, from: alice)
        await expectRPCError("CHAT_NOT_MODIFIED") {
            try await alice.call(API.functions.messages.EditChatDefaultBannedRights(peer: peer(atAlice), bannedRights: plain))
        }
        await expectRPCError("BANNED_RIGHTS_INVALID") {
            try await alice.call(API.functions.messages.EditChatDefaultBannedRights(
                peer: peer(atAlice), bannedRights: .chatBannedRights(.init(viewMessages: true, untilDate: 0))))
        }
        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await bob.call(API.functions.messages.EditChatDefaultBannedRights(peer: peer(atBob), bannedRights: .chatBannedRights(.init(untilDate: 0))))
        }
        _ = try await alice.call(API.functions.messages.EditChatDefaultBannedRights(peer: peer(atAlice),
                                                                                   bannedRights: .chatBannedRights(.init(untilDate: 0))))
        try await post("plain again", to: atBob, from: bob)
        for client in [alice, bob, carol] { await client.close() }
        try await harness.stop()
    }
}
