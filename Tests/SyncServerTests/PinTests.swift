import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// The pinned flags of a chat's history as `client` sees it: message id → pinned, and the service messages' replies.
private func pins(_ client: TestClient, in peer: API.InputPeer) async throws -> (pinned: [Int32: Bool], announcements: [Int32]) {
    let messages = try await historyMessages(client, in: peer, limit: 50)
    var pinned: [Int32: Bool] = [:]
    var announcements: [Int32] = []
    for message in messages {
        switch message {
        case let .message(value): pinned[value.id] = value.pinned
        case let .messageService(value):
            if case .messageActionPinMessage = value.action, case let .messageReplyHeader(header)? = value.replyTo,
               let id = header.replyToMsgId {
                announcements.append(id)
            }
        default: break
        }
    }
    return (pinned, announcements)
}

private func pinUpdates(_ updates: API.Updates) -> [(pinned: Bool, messages: [Int32], pts: Int32)] {
    guard case let .updates(value) = updates else { return [] }
    return value.updates.compactMap { update in
        switch update {
        case let .updatePinnedMessages(pin): (pin.pinned, pin.messages, pin.pts)
        case let .updatePinnedChannelMessages(pin): (pin.pinned, pin.messages, pin.pts)
        default: nil
        }
    }
}

/// `messages.updatePinnedMessage` on both backends: a pin changes every box's copy (one pts each) and adds a service
/// message replying to it; `pm_oneside` pins the caller's copy only; an unpin adds no service message; in a channel only
/// admins pin, as one `updatePinnedChannelMessages` in the channel's log.
@Suite(.timeLimit(.minutes(2)))
struct PinTests {
    @Test(arguments: StorageBackend.all) func aPrivatePinChangesBothCopiesAndIsAnnounced(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let (toBob, toAlice) = (try await inputUser(1002, in: alice), try await inputUser(1001, in: bob))
        _ = try await send("note to self", to: .inputPeerSelf(.init()), from: alice)
        let sent = try await send("the plan", to: toBob, from: alice)
        guard case let .updateShortMessage(atBob) = try await bob.nextPush() else { Issue.record("push to Bob"); return }
        let aliceElsewhere = try await harness.loggedIn(alicePhone)
        _ = try await state(of: aliceElsewhere)

        let answer = try await alice.call(API.functions.messages.UpdatePinnedMessage(peer: toBob, id: sent.id))
        #expect(pinUpdates(answer).map(\.messages) == [[sent.id]] && pinUpdates(answer).first?.pts == sent.pts + 1)
        // The pinner's other session is told too (her box changed), with the same pts as the answer.
        let atElsewhere = try await aliceElsewhere.nextPush()
        #expect(pinUpdates(atElsewhere).map(\.messages) == [[sent.id]] && pinUpdates(atElsewhere).first?.pts == sent.pts + 1)
        await aliceElsewhere.close()
        guard case let .updates(pushed) = try await bob.nextPush() else { Issue.record("pin push to Bob"); return }
        #expect(pinUpdates(.updates(pushed)).map(\.messages) == [[atBob.id]])
        #expect(pushed.updates.contains { if case let .updateNewMessage(new) = $0, case .messageService = new.message { true } else { false } })
        let (alicePins, aliceNotes) = try await pins(alice, in: toBob)
        let (bobPins, bobNotes) = try await pins(bob, in: toAlice)
        #expect(alicePins[sent.id] == true && aliceNotes == [sent.id])
        #expect(bobPins[atBob.id] == true && bobNotes == [atBob.id])

        // Pinning again changes nothing; unpinning is one event per box and no service message.
        #expect(pinUpdates(try await alice.call(API.functions.messages.UpdatePinnedMessage(peer: toBob, id: sent.id))).isEmpty)
        let unpinned = try await bob.call(API.functions.messages.UpdatePinnedMessage(unpin: true, peer: toAlice, id: atBob.id))
        #expect(pinUpdates(unpinned).map(\.pinned) == [false])
        #expect(try await pins(alice, in: toBob).pinned[sent.id] == false)
        #expect(try await pins(alice, in: toBob).announcements == [sent.id])

        // One side only: Bob's copy stays unpinned, and nothing reaches him.
        let mine = try await alice.call(API.functions.messages.UpdatePinnedMessage(pmOneside: true, peer: toBob, id: sent.id))
        #expect(pinUpdates(mine).map(\.pinned) == [true])
        #expect(try await pins(alice, in: toBob).pinned[sent.id] == true)
        #expect(try await pins(bob, in: toAlice).pinned[atBob.id] == false)
        await expectRPCError("MESSAGE_ID_INVALID") {
            try await alice.call(API.functions.messages.UpdatePinnedMessage(peer: toBob, id: 9_999))
        }
        await alice.close(); await bob.close()
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func aGroupPinChangesEveryMembersCopy(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        for index in 1...2 { _ = try await send("carol's own \(index)", to: .inputPeerSelf(.init()), from: carol) }
        let (chatID, _) = try await createGroup("Pins", by: alice, members: [1002, 1003])
        let group = API.InputPeer.inputPeerChat(.init(chatId: chatID))
        let sent = try await send("read this", to: group, from: alice)
        let answer = try await bob.call(API.functions.messages.UpdatePinnedMessage(
            peer: group, id: try #require(try await pins(bob, in: group).pinned.keys.max())))
        #expect(pinUpdates(answer).map(\.pinned) == [true])
        for member in [alice, bob, carol] {
            let (pinned, announcements) = try await pins(member, in: group)
            let message = try #require(pinned.keys.max())
            #expect(pinned[message] == true && announcements == [message])
        }
        #expect(try await pins(alice, in: group).pinned[sent.id] == true)
        guard case let .chatFull(full) = try await carol.call(API.functions.messages.GetFullChat(chatId: chatID)),
              case let .chatFull(chatFull) = full.fullChat else { Issue.record("full chat"); return }
        #expect(chatFull.pinnedMsgId == (try await pins(carol, in: group).pinned.first { $0.value }?.key))
        #expect(chatFull.pinnedMsgId != nil)
        await alice.close(); await bob.close(); await carol.close()
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func onlyChannelAdminsPinAsOneChannelEvent(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let lounge = try await inputChannel("lounge", in: alice)
        let (post, pts) = try await post("rules", to: lounge, from: alice)
        await expectRPCError("CHAT_ADMIN_REQUIRED") {
            try await bob.call(API.functions.messages.UpdatePinnedMessage(peer: peer(try await inputChannel("lounge", in: bob)), id: post))
        }
        let answer = try await alice.call(API.functions.messages.UpdatePinnedMessage(silent: true, peer: peer(lounge), id: post))
        #expect(pinUpdates(answer).map(\.messages) == [[post]] && pinUpdates(answer).first?.pts == pts + 1)
        guard case let .channelDifference(difference) = try await channelDifference(bob, try await inputChannel("lounge", in: bob),
                                                                                      from: pts)
        else { Issue.record("channel difference"); return }
        #expect(difference.otherUpdates.contains { if case let .updatePinnedChannelMessages(pin) = $0 { pin.messages == [post] } else { false } })
        #expect(difference.newMessages.contains { message in
            if case let .messageService(service) = message, case let .messageReplyHeader(header)? = service.replyTo { header.replyToMsgId == post }
            else { false }
        })
        let (pinned, _) = try await pins(bob, in: peer(try await inputChannel("lounge", in: bob)))
        #expect(pinned[post] == true)
        // The full channel names it (clients show it above the chat), and the newest pin when there are several.
        guard case let .chatFull(full) = try await bob.call(API.functions.channels.GetFullChannel(channel: try await inputChannel("lounge", in: bob))),
              case let .channelFull(channelFull) = full.fullChat else { Issue.record("full channel"); return }
        #expect(channelFull.pinnedMsgId == post)
        let (later, _) = try await postMessage("later rules", to: lounge, from: alice)
        _ = try await alice.call(API.functions.messages.UpdatePinnedMessage(peer: peer(lounge), id: later))
        guard case let .chatFull(again) = try await alice.call(API.functions.channels.GetFullChannel(channel: lounge)),
              case let .channelFull(againFull) = again.fullChat else { Issue.record("full channel"); return }
        #expect(againFull.pinnedMsgId == later)
        await alice.close(); await bob.close()
        try await harness.stop()
    }

    /// `messages.unpinAllMessages`: in a private chat one update per box listing its ids, both sides unpinned; in a
    /// channel admins only, as one channel event.
    @Test(arguments: StorageBackend.all) func unpinAllClearsAChatsPinsInOneStepPerBox(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let (toBob, toAlice) = (try await inputUser(1002, in: alice), try await inputUser(1001, in: bob))
        var sent: [Int32] = []
        for text in ["one", "two", "three"] {
            sent.append(try await send(text, to: toBob, from: alice).id)
            _ = try await bob.nextPush()
        }
        for id in sent.prefix(2) {
            _ = try await alice.call(API.functions.messages.UpdatePinnedMessage(silent: true, peer: toBob, id: id))
            _ = try await bob.nextPush()
        }
        #expect(try await pins(bob, in: toAlice).pinned.values.filter { $0 }.count == 2)

        guard case let .affectedHistory(affected) = try await alice.call(API.functions.messages.UnpinAllMessages(peer: toBob)) else { return }
        #expect(affected.ptsCount == 1 && affected.offset == 0)
        guard case let .updateShort(short) = try await bob.nextPush(), case let .updatePinnedMessages(unpinned) = short.update else {
            Issue.record("no unpin push to Bob"); return
        }
        #expect(!unpinned.pinned && unpinned.messages.count == 2)
        #expect(try await pins(alice, in: toBob).pinned.values.allSatisfy { !$0 })
        #expect(try await pins(bob, in: toAlice).pinned.values.allSatisfy { !$0 })
        guard case let .affectedHistory(nothing) = try await alice.call(API.functions.messages.UnpinAllMessages(peer: toBob)) else { return }
        #expect(nothing.ptsCount == 0 && nothing.pts == affected.pts)

        let lounge = try await inputChannel("lounge", in: alice)
        let (post, _) = try await post("rules", to: lounge, from: alice)
        _ = try await alice.call(API.functions.messages.UpdatePinnedMessage(silent: true, peer: peer(lounge), id: post))
        let bobsLounge = peer(try await inputChannel("lounge", in: bob))
        await expectRPCError("CHAT_ADMIN_REQUIRED") { try await bob.call(API.functions.messages.UnpinAllMessages(peer: bobsLounge)) }
        guard case let .affectedHistory(channel) = try await alice.call(API.functions.messages.UnpinAllMessages(peer: peer(lounge))) else { return }
        #expect(channel.ptsCount == 1)
        #expect(try await pins(bob, in: bobsLounge).pinned[post] == false)
        await expectRPCError("TOPIC_ID_INVALID") { try await alice.call(API.functions.messages.UnpinAllMessages(peer: toBob, topMsgId: 1)) }
        await alice.close(); await bob.close()
        try await harness.stop()
    }
}

/// `post` under a name a test's local `post` does not hide.
private func postMessage(_ text: String, to channel: API.InputChannel, from client: TestClient) async throws -> (id: Int32, pts: Int32) {
    try await post(text, to: channel, from: client)
}
