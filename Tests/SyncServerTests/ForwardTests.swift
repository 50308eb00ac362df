import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// The forwarded messages of an `updates` (the answer or a push): (text, header) per `updateNewMessage` /
/// `updateNewChannelMessage`.
private func forwarded(_ updates: API.Updates) -> [(text: String, header: API.MessageFwdHeader.MessageFwdHeader?)] {
    guard case let .updates(value) = updates else { return [] }
    return value.updates.compactMap { update in
        let message: API.Message
        switch update {
        case let .updateNewMessage(new): message = new.message
        case let .updateNewChannelMessage(new): message = new.message
        default: return nil
        }
        guard case let .message(content) = message else { return nil }
        if case let .messageFwdHeader(header)? = content.fwdFrom { return (content.message, header) }
        return (content.message, nil)
    }
}

private func forward(_ ids: [Int32], from: API.InputPeer, to: API.InputPeer, by client: TestClient, dropAuthor: Bool = false,
                     randomIDs: [Int64]? = nil) async throws -> API.Updates {
    try await client.call(API.functions.messages.ForwardMessages(
        dropAuthor: dropAuthor, fromPeer: from, id: ids, randomId: randomIDs ?? ids.map { _ in .random(in: 1...Int64.max) }, toPeer: to))
}

/// `messages.forwardMessages` on both backends: private ↔ private, channel → private, private → channel and group,
/// with `fwd_from` naming the first author (or the broadcast channel and its post) at the original date, kept
/// through a second forward, left out with `drop_author`; one pts per message in each box; retries recognised per
/// `random_id`; refusals by name.
@Suite(.timeLimit(.minutes(2)))
struct ForwardTests {
    @Test(arguments: StorageBackend.all) func forwardsCarryTheirFirstAuthorAndOnePtsEach(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        let (bobAtAlice, carolAtAlice) = (try await inputUser(1002, in: alice), try await inputUser(1003, in: alice))
        let one = try await send("one", to: bobAtAlice, from: alice)
        let two = try await send("two", to: bobAtAlice, from: alice)
        try await receiveMessages(2, at: bob)
        let carolBefore = try await state(of: carol)

        let randomIDs: [Int64] = [71, 72]
        let answer = try await forward([one.id, two.id], from: bobAtAlice, to: carolAtAlice, by: alice, randomIDs: randomIDs)
        let copies = forwarded(answer)
        #expect(copies.map(\.text) == ["one", "two"])
        #expect(copies.allSatisfy { $0.header?.fromId == .peerUser(.init(userId: 1001)) })
        #expect(copies.map { $0.header?.date } == [one.date, two.date], "each at its original date")
        guard case let .updates(answered) = answer else { return }
        #expect(answered.updates.compactMap { if case let .updateMessageID(v) = $0 { v.randomId } else { nil } } == randomIDs)
        let atCarol = forwarded(try await carol.nextPush())
        #expect(atCarol.map(\.text) == ["one", "two"] && atCarol.allSatisfy { $0.header?.fromId == .peerUser(.init(userId: 1001)) })
        #expect(try await state(of: carol).pts == carolBefore.pts + 2, "one pts per message")

        // A retry of the same random ids stores nothing new.
        let retried = forwarded(try await forward([one.id, two.id], from: bobAtAlice, to: carolAtAlice, by: alice, randomIDs: randomIDs))
        #expect(retried.map(\.text) == ["one", "two"])
        #expect(try await state(of: carol).pts == carolBefore.pts + 2)

        // Carol forwards what she got to Bob: the first author stays; with drop_author, no header.
        let carolHistory = try await historyMessages(carol, in: try await inputUser(1001, in: carol))
        let carolIDs = carolHistory.compactMap { if case let .message(m) = $0 { m.id } else { nil } }.sorted()
        let bobAtCarol = try await inputUser(1002, in: carol)
        let again = forwarded(try await forward([carolIDs[0]], from: try await inputUser(1001, in: carol), to: bobAtCarol, by: carol))
        #expect(again.first?.header?.fromId == .peerUser(.init(userId: 1001)) && again.first?.header?.date == one.date)
        let dropped = forwarded(try await forward([carolIDs[1]], from: try await inputUser(1001, in: carol), to: bobAtCarol, by: carol,
                                                  dropAuthor: true))
        #expect(dropped.count == 1 && dropped.first?.header == nil && dropped.first?.text == "two")

        // The difference from before gives Carol the copies with their headers (her own forwards too: one with, one without).
        guard case let .difference(difference) = try await carol.call(API.functions.updates.GetDifference(
            pts: carolBefore.pts, date: carolBefore.date, qts: 0)) else { Issue.record("no difference"); return }
        let headers = difference.newMessages.map { message -> API.MessageFwdHeader? in if case let .message(m) = message { m.fwdFrom } else { nil } }
        #expect(headers.count == 4 && headers.compactMap { $0 }.count == 3)

        await expectRPCError("RANDOM_ID_INVALID") {
            try await forward([one.id, two.id], from: bobAtAlice, to: carolAtAlice, by: alice, randomIDs: [1])
        }
        await expectRPCError("MESSAGE_ID_INVALID") { try await forward([999_999], from: bobAtAlice, to: carolAtAlice, by: alice) }
        for client in [alice, bob, carol] { await client.close() }
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func channelPostsForwardWithTheirChannelAndMessagesIntoChannels(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let news = try await inputChannel("news", in: alice)
        let posted = try await post("big news", to: news, from: alice)
        let bobAtAlice = try await inputUser(1002, in: alice)

        let answer = try await forward([posted.id], from: peer(news), to: bobAtAlice, by: alice)
        guard case let .updates(answered) = answer else { Issue.record("no updates"); return }
        let header = forwarded(answer).first?.header
        #expect(header?.fromId == .peerChannel(.init(channelId: 2001)) && header?.channelPost == posted.id)
        #expect(answered.chats.contains { if case let .channel(c) = $0 { c.id == 2001 } else { false } }, "the channel it names")
        guard case let .updates(atBob) = try await bob.nextPush() else { Issue.record("no push to Bob"); return }
        #expect(forwarded(.updates(atBob)).first?.header?.channelPost == posted.id)
        #expect(atBob.chats.contains { if case let .channel(c) = $0 { c.id == 2001 } else { false } })

        // A private message into a supergroup and into a basic group.
        let hello = try await send("hello", to: bobAtAlice, from: alice)
        let lounge = try await inputChannel("lounge", in: alice)
        let intoLounge = forwarded(try await forward([hello.id], from: bobAtAlice, to: peer(lounge), by: alice))
        #expect(intoLounge.first?.text == "hello" && intoLounge.first?.header?.fromId == .peerUser(.init(userId: 1001)))
        guard case let .invitedUsers(invited) = try await alice.call(API.functions.messages.CreateChat(
            users: [.inputUser(.init(userId: 1002, accessHash: try await accessHashOf(1002, in: alice)))], title: "Pair")),
              case let .updates(created) = invited.updates, case let .chat(group)? = created.chats.first else { Issue.record("no group"); return }
        let intoGroup = forwarded(try await forward([hello.id], from: bobAtAlice, to: .inputPeerChat(.init(chatId: group.id)), by: alice))
        #expect(intoGroup.first?.text == "hello" && intoGroup.first?.header?.fromId == .peerUser(.init(userId: 1001)))

        // Bob forwards Alice's private message into @lounge: every member's push names Alice as the origin, at her
        // message's date, and carries her (the origin was missing from members' pushes: clients showed no sender).
        let carol = try await harness.loggedIn(carolPhone)
        _ = try await state(of: carol)
        let aliceAtBob = try await inputUser(1001, in: bob)
        guard case let .updateShortMessage(helloAtBob) = try await bob.nextPush() else { Issue.record("no push to Bob"); return }
        _ = try await forward([helloAtBob.id], from: aliceAtBob, to: peer(try await inputChannel("lounge", in: bob)), by: bob)
        var atCarol = try await carol.nextPush()
        while forwarded(atCarol).isEmpty { atCarol = try await carol.nextPush() }
        let origin = try #require(forwarded(atCarol).first?.header)
        #expect(origin.fromId == .peerUser(.init(userId: 1001)) && origin.date == helloAtBob.date)
        guard case let .updates(carolsPush) = atCarol else { Issue.record("no updates"); return }
        #expect(Set(carolsPush.users.compactMap { user -> Int64? in if case let .user(u) = user { u.id } else { nil } }) == [1001, 1002])
        // A channel difference carries the origin too (it carried the senders only).
        guard case let .channelDifference(caughtUp) = try await channelDifference(carol, try await inputChannel("lounge", in: carol), from: 1)
        else { Issue.record("no channel difference"); return }
        #expect(caughtUp.users.contains { if case let .user(u) = $0 { u.id == 1001 } else { false } })
        await carol.close()

        // Bob cannot post in @news (a broadcast channel he is not an admin of).
        await expectRPCError("CHANNEL_PRIVATE") {
            try await forward([posted.id], from: peer(try await inputChannel("news", in: bob)), to: try await inputUser(1001, in: bob), by: bob)
        }
        for client in [alice, bob] { await client.close() }
        try await harness.stop()
    }
}

private func accessHashOf(_ id: Int64, in client: TestClient) async throws -> Int64 {
    guard case let .inputPeerUser(user) = try await inputUser(id, in: client) else { throw TestClientError.unexpected("no user") }
    return user.accessHash
}
