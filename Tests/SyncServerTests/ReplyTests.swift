import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// The message ids of a chat's history, each with the id its reply header names (nil: not a reply), newest first.
private func replies(_ client: TestClient, in peer: API.InputPeer) async throws -> [(id: Int32, text: String, replyTo: Int32?)] {
    let messages = try await historyMessages(client, in: peer, limit: 20)
    return messages.compactMap { message in
        guard case let .message(value) = message else { return nil }
        guard case let .messageReplyHeader(header)? = value.replyTo else { return (value.id, value.message, nil) }
        return (value.id, value.message, header.replyToMsgId)
    }
}

private func ids(_ messages: [API.Message]) -> [Int32] {
    messages.compactMap { message in
        switch message {
        case let .message(value): value.id
        case let .messageService(value): value.id
        case .messageEmpty: nil
        }
    }
}

private func reply(to id: Int32) -> API.InputReplyTo {
    .inputReplyToMessage(.init(replyToMsgId: id))
}

/// `reply_to` of `messages.sendMessage`, on both backends: each copy of a reply names the copy of the replied message
/// in its own box (private chats and basic groups number messages per box), in pushes, history and differences alike;
/// a reply to a message the chat does not hold, or into another chat, is refused as Telegram names it.
@Suite(.timeLimit(.minutes(2)))
struct ReplyTests {
    @Test(arguments: StorageBackend.all) func aPrivateReplyNamesEachBoxsOwnCopy(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let (toBob, toAlice) = (try await inputUser(1002, in: alice), try await inputUser(1001, in: bob))
        // Alice's box gets a message of her own first, so the two boxes number the question differently.
        _ = try await send("note to self", to: .inputPeerSelf(.init()), from: alice)
        let question = try await send("question?", to: toBob, from: alice)
        guard case let .updateShortMessage(atBob) = try await bob.nextPush() else { Issue.record("push to Bob"); return }
        #expect(atBob.id != question.id)
        let aliceBefore = try await state(of: alice).pts

        guard case .updateShortSentMessage = try await bob.call(API.functions.messages.SendMessage(
            peer: toAlice, replyTo: reply(to: atBob.id), message: "answer", randomId: 7)) else { Issue.record("reply"); return }
        guard case let .updateShortMessage(atAlice) = try await alice.nextPush(),
              case let .messageReplyHeader(pushed)? = atAlice.replyTo else { Issue.record("the push carries no reply"); return }
        #expect(pushed.replyToMsgId == question.id)
        #expect(try await replies(alice, in: toBob).first.map { [$0.text] + [$0.replyTo.map(String.init) ?? "-"] }
                == ["answer", String(question.id)])
        #expect(try await replies(bob, in: toAlice).first?.replyTo == atBob.id)
        guard case let .difference(difference) = try await alice.call(API.functions.updates.GetDifference(pts: aliceBefore, date: 0, qts: 0)),
              case let .message(logged)? = difference.newMessages.first, case let .messageReplyHeader(header)? = logged.replyTo
        else { Issue.record("the difference carries no reply"); return }
        #expect(header.replyToMsgId == question.id)
        // How clients load the message a reply quotes: `inputMessageReplyTo` names the replied message of the box.
        let answerAtAlice = try #require(try await replies(alice, in: toBob).first?.id)
        let quoted = try await alice.call(API.functions.messages.GetMessages(id: [
            .inputMessageReplyTo(.init(id: answerAtAlice)), .inputMessageReplyTo(.init(id: question.id)),
        ]))
        guard case let .messages(found) = quoted else { Issue.record("getMessages: \(quoted)"); return }
        #expect(ids(found.messages) == [question.id], "the reply's target once; a message that replies to nothing names none")

        await expectRPCError("REPLY_MESSAGE_ID_INVALID") {
            try await bob.call(API.functions.messages.SendMessage(peer: toAlice, replyTo: reply(to: 9_999), message: "?", randomId: 8))
        }
        // Alice's note to herself is hers only: Bob cannot reply to its id in his chat with her.
        let carol = try await inputUser(1003, in: bob)
        await expectRPCError("REPLY_TO_INVALID") {
            try await bob.call(API.functions.messages.SendMessage(
                peer: toAlice, replyTo: .inputReplyToMessage(.init(replyToMsgId: atBob.id, replyToPeerId: carol)), message: "?",
                randomId: 9))
        }
        await expectRPCError("REPLY_TO_INVALID") {
            try await bob.call(API.functions.messages.SendMessage(
                peer: toAlice, replyTo: .inputReplyToStory(.init(peer: toAlice, storyId: 1)), message: "?", randomId: 10))
        }
        await alice.close(); await bob.close()
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func aGroupReplyNamesEachMembersCopy(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        // Carol's box is ahead of the others, so the group's messages have other ids in hers.
        for index in 1...3 { _ = try await send("carol's own \(index)", to: .inputPeerSelf(.init()), from: carol) }
        let (chatID, _) = try await createGroup("Questions", by: alice, members: [1002, 1003])
        let group = API.InputPeer.inputPeerChat(.init(chatId: chatID))
        _ = try await send("who is in?", to: group, from: alice)
        let carolsQuestion = try #require(try await replies(carol, in: group).first { $0.text == "who is in?" })
        guard case .updateShortSentMessage = try await carol.call(API.functions.messages.SendMessage(
            peer: group, replyTo: reply(to: carolsQuestion.id), message: "me", randomId: 11)) else { Issue.record("reply"); return }
        for member in [alice, bob, carol] {
            let history = try await replies(member, in: group)
            let question = try #require(history.first { $0.text == "who is in?" })
            #expect(history.first { $0.text == "me" }?.replyTo == question.id)
        }
        await alice.close(); await bob.close(); await carol.close()
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func aChannelReplyNamesTheChannelsMessage(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let lounge = try await inputChannel("lounge", in: bob)
        let (question, pts) = try await post("anyone?", to: lounge, from: alice)
        let result = try await bob.call(API.functions.messages.SendMessage(peer: peer(lounge), replyTo: reply(to: question),
                                                                           message: "here", randomId: 12))
        guard case let .updates(updates) = result, case let .updateNewChannelMessage(new)? = updates.updates.last,
              case let .message(answer) = new.message, case let .messageReplyHeader(header)? = answer.replyTo
        else { Issue.record("the answer carries no reply: \(result)"); return }
        #expect(header.replyToMsgId == question)
        guard case let .channelDifference(difference) = try await channelDifference(alice, try await inputChannel("lounge", in: alice),
                                                                                      from: pts),
              case let .message(logged)? = difference.newMessages.first, case let .messageReplyHeader(seen)? = logged.replyTo
        else { Issue.record("the channel difference carries no reply"); return }
        #expect(seen.replyToMsgId == question)
        let quoted = try await alice.call(API.functions.channels.GetMessages(
            channel: try await inputChannel("lounge", in: alice), id: [.inputMessageReplyTo(.init(id: answer.id))]))
        guard case let .channelMessages(found) = quoted else { Issue.record("channels.getMessages: \(quoted)"); return }
        #expect(ids(found.messages) == [question])
        await expectRPCError("REPLY_MESSAGE_ID_INVALID") {
            try await bob.call(API.functions.messages.SendMessage(peer: peer(lounge), replyTo: reply(to: question + 50), message: "?",
                                                                  randomId: 13))
        }
        await alice.close(); await bob.close()
        try await harness.stop()
    }
}
