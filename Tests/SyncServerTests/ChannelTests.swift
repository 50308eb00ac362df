import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// A seeded channel as clients address it, resolved by username (the access hash is the one the server hands out).
func inputChannel(_ username: String, in client: TestClient) async throws -> API.InputChannel {
    guard case let .resolvedPeer(resolved) = try await client.call(API.functions.contacts.ResolveUsername(username: username)),
          case let .channel(channel)? = resolved.chats.first, let accessHash = channel.accessHash
    else { throw TestClientError.unexpected("cannot resolve \(username)") }
    return .inputChannel(.init(channelId: channel.id, accessHash: accessHash))
}

func peer(_ channel: API.InputChannel) -> API.InputPeer {
    guard case let .inputChannel(value) = channel else { return .inputPeerEmpty(.init()) }
    return .inputPeerChannel(.init(channelId: value.channelId, accessHash: value.accessHash))
}

/// Posts `text`; returns the new message's id and the channel pts it produced.
@discardableResult
func post(_ text: String, to channel: API.InputChannel, from client: TestClient, randomID: Int64 = .random(in: 1...Int64.max))
    async throws -> (id: Int32, pts: Int32) {
    let result = try await client.call(API.functions.messages.SendMessage(peer: peer(channel), message: text, randomId: randomID))
    guard case let .updates(updates) = result, case let .updateMessageID(assigned)? = updates.updates.first,
          case let .updateNewChannelMessage(new)? = updates.updates.last
    else { throw TestClientError.unexpected("\(result)") }
    #expect(assigned.randomId == randomID)
    return (assigned.id, new.pts)
}

func channelDifference(_ client: TestClient, _ channel: API.InputChannel, from pts: Int32, limit: Int32 = 100)
    async throws -> API.updates.ChannelDifference {
    try await client.call(API.functions.updates.GetChannelDifference(channel: channel, filter: .channelMessagesFilterEmpty(.init()),
                                                                     pts: pts, limit: limit))
}

func texts(_ messages: [API.Message]) -> [String] {
    messages.compactMap { if case let .message(m) = $0 { m.message } else { nil } }
}

/// An awaited call fails with an `rpc_error` whose text contains `expected`.
func expectRPCError<T>(_ expected: String, _ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async {
    do {
        _ = try await body()
        Issue.record("expected \(expected), the call succeeded", sourceLocation: sourceLocation)
    } catch {
        #expect("\(error)".contains(expected), "\(error)", sourceLocation: sourceLocation)
    }
}

@Suite(.timeLimit(.minutes(2)))
struct ChannelTests {
    /// Joining @news, a post advances the channel's pts by one, the poster gets `updateMessageID` + the message,
    /// members online get `updates{updateNewChannelMessage, chats: [channel]}`, and only admins may post.
    @Test(arguments: StorageBackend.all) func postsAdvanceTheChannelPtsAndArePushedToMembers(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let news = try await inputChannel("news", in: bob)
        await expectRPCError("CHANNEL_PRIVATE") { try await channelDifference(bob, news, from: 1) }
        guard case let .chatInviteJoinResultOk(joined) = try await bob.call(API.functions.channels.JoinChannel(channel: news)),
              case let .updates(joinUpdates) = joined.updates else { Issue.record("join"); return }
        #expect(joinUpdates.updates.first?.constructorName == "updateChannel")
        await expectRPCError("USER_ALREADY_PARTICIPANT") { try await bob.call(API.functions.channels.JoinChannel(channel: news)) }

        // Each push is awaited before the next post: pushes that meet in Bob's queue would leave as one updatesCombined.
        var posted: [(id: Int32, pts: Int32)] = []
        for expected in ["post 1", "post 2"] {
            posted.append(try await post(expected, to: news, from: alice))
            guard case let .updates(pushed) = try await bob.nextPush(),
                  case let .updateNewChannelMessage(new)? = pushed.updates.first, case let .message(message) = new.message
            else { Issue.record("push"); return }
            #expect(message.message == expected && message.post && !message.out && message.fromId == nil)
            #expect(pushed.chats.contains { if case let .channel(c) = $0 { c.id == 2001 } else { false } })
        }
        #expect(posted.map(\.pts) == [2, 3])   // pts 1 is the channel's creation
        await expectRPCError("CHAT_WRITE_FORBIDDEN") { try await post("not an admin", to: news, from: bob) }

        guard case let .channelMessages(history) = try await bob.call(API.functions.messages.GetHistory(
            peer: peer(news), offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0))
        else { Issue.record("history"); return }
        #expect(history.pts == 3 && history.count == 3)
        #expect(texts(history.messages) == ["post 2", "post 1"])
        #expect(history.messages.last?.constructorName == "messageService")   // the channel's creation
        await alice.close(); await bob.close()
        try await harness.stop()
    }

    /// A retried `random_id` returns the first post and logs nothing.
    @Test(arguments: StorageBackend.all) func aRepeatedRandomIDPostsOnce(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let news = try await inputChannel("news", in: alice)
        let first = try await post("once", to: news, from: alice, randomID: 42)
        let again = try await post("once", to: news, from: alice, randomID: 42)
        #expect(first == again)
        guard case let .channelDifferenceEmpty(empty) = try await channelDifference(alice, news, from: first.pts) else {
            Issue.record("the retry logged an event"); return
        }
        #expect(empty.pts == first.pts && empty.final)
        await alice.close()
        try await harness.stop()
    }

    /// Channel differences come in pages of at most 100 events for users (100,000 for bots), `final` on the last;
    /// from the current pts the answer is empty.
    @Test(arguments: StorageBackend.all) func channelDifferencePagesAreCappedForUsersNotForBots(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend, channelTooLongThreshold: 1_000)
        let storage = try await harness.openStorage()
        try await storage.write { tx in
            try tx.insert(UserRecord(id: 5000, accessHash: 5, phone: "15559000", firstName: "Robot", homeDC: 2, isBot: true))
        }
        let alice = try await harness.loggedIn(alicePhone)
        let lounge = try await inputChannel("lounge", in: alice)
        for index in 1...150 { try await post("m\(index)", to: lounge, from: alice) }

        guard case let .channelDifference(page1) = try await channelDifference(alice, lounge, from: 1, limit: 1_000) else {
            Issue.record("page 1"); return
        }
        #expect(page1.newMessages.count == 100 && !page1.final && page1.pts == 101)
        guard case let .channelDifference(page2) = try await channelDifference(alice, lounge, from: page1.pts, limit: 1_000) else {
            Issue.record("page 2"); return
        }
        #expect(page2.final && page2.pts == 151 && page2.timeout != nil)
        #expect(texts(page1.newMessages + page2.newMessages) == (1...150).map { "m\($0)" })
        guard case .channelDifferenceEmpty = try await channelDifference(alice, lounge, from: 151) else { Issue.record("empty"); return }

        let bot = try await harness.loggedIn("+15559000")
        let botLounge = try await inputChannel("lounge", in: bot)
        await expectRPCError("CHANNEL_PRIVATE") { try await channelDifference(bot, botLounge, from: 1) }
        try await storage.write { tx in try tx.upsert(ChannelMember(channelID: 2002, userID: 5000, role: .member, date: 0)) }
        guard case let .channelDifference(all) = try await channelDifference(bot, botLounge, from: 1, limit: 100_000) else {
            Issue.record("bot page"); return
        }
        #expect(all.newMessages.count == 150 && all.final)
        await alice.close(); await bot.close()
        await storage.close()
        try await harness.stop()
    }

    /// Past the threshold the answer is too long: the dialog with the current pts and the newest messages, never
    /// the missed events replayed.
    @Test(arguments: StorageBackend.all) func aGapPastTheThresholdIsChannelDifferenceTooLong(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend, channelTooLongThreshold: 5)
        let alice = try await harness.loggedIn(alicePhone)
        let lounge = try await inputChannel("lounge", in: alice)
        for index in 1...8 { try await post("m\(index)", to: lounge, from: alice) }
        guard case let .channelDifferenceTooLong(tooLong) = try await channelDifference(alice, lounge, from: 2, limit: 3),
              case let .dialog(dialog) = tooLong.dialog else { Issue.record("expected too long"); return }
        #expect(dialog.pts == 9 && dialog.topMessage == 9)
        #expect(texts(tooLong.messages) == ["m8", "m7", "m6"])
        guard case .channelDifference = try await channelDifference(alice, lounge, from: 4) else { Issue.record("gap of 5"); return }
        await alice.close()
        try await harness.stop()
    }

    /// `getDifference` names, with `updateChannelTooLong` and its pts, the channels with events since the client's
    /// date, even when the user's own box has nothing new — also asked from a few seconds after the event (an event
    /// can commit after a later date was handed out); and not the channels without.
    @Test(arguments: StorageBackend.all) func getDifferenceNamesChannelsWithNews(backend: StorageBackend) async throws {
        let clock = VirtualClock(start: Date().timeIntervalSince1970.rounded(.down))
        let harness = try await ServerHarness(backend: backend, environment: SyncEnvironment.live.on(clock))
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let lounge = try await inputChannel("lounge", in: alice)
        let bobState = try await state(of: bob)
        clock.advance(by: 2)   // the post is in a later second than Bob's state
        try await post("while bob was away", to: lounge, from: alice)
        let since = bobState.date + 1
        guard case let .difference(difference) = try await bob.call(API.functions.updates.GetDifference(
            pts: bobState.pts, date: since, qts: 0)) else { Issue.record("expected a difference"); return }
        let named = difference.otherUpdates.compactMap { if case let .updateChannelTooLong(u) = $0 { u } else { nil } }
        #expect(named.map(\.channelId) == [2002])
        guard case let .channelDifference(current) = try await channelDifference(alice, lounge, from: 1) else {
            Issue.record("the channel's pts"); return
        }
        #expect(named.first?.pts == current.pts)
        let postDate: Int32 = current.newMessages.compactMap { message -> Int32? in if case let .message(m) = message { m.date } else { nil } }.max() ?? 0
        #expect(difference.newMessages.isEmpty)
        #expect(difference.chats.contains { if case let .channel(c) = $0 { c.id == 2002 && c.accessHash != nil } else { false } })
        guard case let .difference(late) = try await bob.call(API.functions.updates.GetDifference(
            pts: bobState.pts, date: postDate + Difference.lookback, qts: 0)),
              late.otherUpdates.contains(where: { if case .updateChannelTooLong = $0 { true } else { false } })
        else { Issue.record("the lookback"); return }
        let later = postDate + Difference.lookback + 1
        guard case .differenceEmpty = try await bob.call(API.functions.updates.GetDifference(pts: bobState.pts, date: later, qts: 0))
        else { Issue.record("nothing since later"); return }
        await alice.close(); await bob.close()
        try await harness.stop()
    }

    /// Bob cannot read or write a channel he left, nor Alice–Carol messages; the creator cannot leave.
    @Test(arguments: StorageBackend.all) func leavingEndsAccess(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let lounge = try await inputChannel("lounge", in: bob)
        try await post("bob was here", to: lounge, from: bob)
        _ = try await bob.call(API.functions.channels.LeaveChannel(channel: lounge))
        await expectRPCError("CHANNEL_PRIVATE") {
            try await bob.call(API.functions.messages.GetHistory(peer: peer(lounge), offsetId: 0, offsetDate: 0, addOffset: 0,
                                                                 limit: 10, maxId: 0, minId: 0, hash: 0))
        }
        await expectRPCError("CHANNEL_PRIVATE") { try await channelDifference(bob, lounge, from: 1) }
        await expectRPCError("CHANNEL_PRIVATE") { try await post("let me in", to: lounge, from: bob) }
        await expectRPCError("CHANNEL_PRIVATE") {
            try await bob.call(API.functions.channels.GetMessages(channel: lounge, id: [.inputMessageID(.init(id: 1))]))
        }
        await expectRPCError("USER_CREATOR") { try await alice.call(API.functions.channels.LeaveChannel(channel: lounge)) }

        // Alice–Carol messages live in their boxes: Bob's ids reach only his own box.
        let carol = try await inputUser(1003, in: alice)
        let sent = try await send("for carol only", to: carol, from: alice)
        guard case let .messages(mine) = try await bob.call(API.functions.messages.GetMessages(id: [.inputMessageID(.init(id: sent.id))]))
        else { Issue.record("getMessages"); return }
        #expect(texts(mine.messages).allSatisfy { $0 != "for carol only" })
        let forged = API.InputChannel.inputChannel(.init(channelId: 2002, accessHash: 1))
        await expectRPCError("CHANNEL_INVALID") { try await channelDifference(alice, forged, from: 1) }
        await alice.close(); await bob.close()
        try await harness.stop()
    }

    /// Deletes and edits are channel events; members may change their own messages, admins delete anyone's.
    @Test(arguments: StorageBackend.all) func editsAndDeletesAreChannelEvents(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        let lounge = try await inputChannel("lounge", in: bob)
        // Each push drained before the next post (pushes meeting in Carol's queue would be merged into one).
        let bobs = try await post("typo", to: lounge, from: bob)
        _ = try await carol.nextPush()
        let alices = try await post("from alice", to: lounge, from: alice)
        _ = try await carol.nextPush()

        await expectRPCError("MESSAGE_AUTHOR_REQUIRED") {
            try await bob.call(API.functions.messages.EditMessage(peer: peer(lounge), id: alices.id, message: "mine now"))
        }
        _ = try await bob.call(API.functions.messages.EditMessage(peer: peer(lounge), id: bobs.id, message: "fixed"))
        guard case let .updates(edit) = try await carol.nextPush(), case let .updateEditChannelMessage(edited)? = edit.updates.first,
              case let .message(message) = edited.message else { Issue.record("edit push"); return }
        #expect(message.message == "fixed" && edited.pts == alices.pts + 1 && message.editDate != nil)

        await expectRPCError("MESSAGE_DELETE_FORBIDDEN") {
            try await bob.call(API.functions.channels.DeleteMessages(channel: lounge, id: [alices.id]))
        }
        guard case let .affectedMessages(affected) = try await alice.call(API.functions.channels.DeleteMessages(
            channel: lounge, id: [bobs.id, alices.id, 999])) else { return }
        #expect(affected.ptsCount == 2 && affected.pts == alices.pts + 3)
        guard case let .updates(deletion) = try await carol.nextPush(),
              case let .updateDeleteChannelMessages(deleted)? = deletion.updates.first else { Issue.record("delete push"); return }
        #expect(deleted.messages == [bobs.id, alices.id] && deleted.pts == affected.pts)

        guard case let .channelDifference(replay) = try await channelDifference(carol, lounge, from: alices.pts) else { return }
        #expect(replay.otherUpdates.map(\.constructorName) == ["updateEditChannelMessage", "updateDeleteChannelMessages"])
        await alice.close(); await bob.close(); await carol.close()
        try await harness.stop()
    }

    /// A new supergroup starts with its creation message at pts 1 and appears in the creator's dialogs with its pts.
    @Test(arguments: StorageBackend.all) func createdChannelsAppearInDialogs(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        guard case let .updates(created) = try await alice.call(API.functions.channels.CreateChannel(
            megagroup: true, title: "Planning", about: "")),
              case let .channel(channel)? = created.chats.first else { Issue.record("create"); return }
        #expect(channel.creator && channel.megagroup && channel.id >= 20_000)
        #expect(created.updates.map(\.constructorName) == ["updateChannel", "updateNewChannelMessage"])
        await expectRPCError("CHANNEL_TYPE_INVALID") {
            try await alice.call(API.functions.channels.CreateChannel(title: "Neither", about: ""))
        }
        guard case let .dialogs(dialogs) = try await alice.call(API.functions.messages.GetDialogs(
            offsetDate: 0, offsetId: 0, offsetPeer: .inputPeerEmpty(.init()), limit: 100, hash: 0)) else { Issue.record("dialogs"); return }
        let channelDialogs = dialogs.dialogs.compactMap { dialog -> (Int64, Int32?)? in
            guard case let .dialog(d) = dialog, case let .peerChannel(p) = d.peer else { return nil }
            return (p.channelId, d.pts)
        }
        #expect(Set(channelDialogs.map(\.0)) == [2001, 2002, channel.id])
        #expect(channelDialogs.allSatisfy { $0.1 == 1 })
        await alice.close()
        try await harness.stop()
    }

    /// In a supergroup a member's read reaches the senders of what was read as `updateReadChannelOutbox`, and their
    /// dialog shows it; the reader's own posts do not notify the reader.
    @Test(arguments: StorageBackend.all) func supergroupReadsMoveTheSendersOutbox(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let lounge = try await inputChannel("lounge", in: alice)
        let first = try await post("read me", to: lounge, from: alice)
        _ = try await post("and me", to: lounge, from: alice)
        _ = try await state(of: alice)
        #expect(try await bob.call(API.functions.channels.ReadHistory(channel: lounge, maxId: first.id)))
        guard case let .updateShort(short) = try await alice.nextPush(), case let .updateReadChannelOutbox(outbox) = short.update else {
            Issue.record("no outbox read for Alice"); return
        }
        #expect(outbox.maxId == first.id)
        let dialogs = try await alice.call(API.functions.messages.GetDialogs(offsetDate: 0, offsetId: 0, offsetPeer: .inputPeerEmpty(.init()),
                                                                              limit: 20, hash: 0))
        guard case let .dialogs(list) = dialogs else { Issue.record("dialogs"); return }
        let loungeDialog = list.dialogs.first { if case let .dialog(d) = $0, case .peerChannel = d.peer { d.topMessage == first.id + 1 } else { false } }
        guard case let .dialog(found)? = loungeDialog else { Issue.record("no @lounge dialog"); return }
        #expect(found.readOutboxMaxId == first.id)
        for client in [alice, bob] { await client.close() }
        try await harness.stop()
    }

    /// In a supergroup leaving and joining are service messages: channel events (pts + 1 each) pushed to members,
    /// and the joiner's answer carries theirs.
    @Test(arguments: StorageBackend.all) func supergroupJoinsAndLeavesAreServiceMessages(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let carol = try await harness.loggedIn(carolPhone)
        let lounge = try await inputChannel("lounge", in: carol)
        _ = try await carol.call(API.functions.channels.LeaveChannel(channel: lounge))
        guard case let .updates(left) = try await alice.nextPush(), case let .updateNewChannelMessage(leave)? = left.updates.first,
              case let .messageService(leaveMessage) = leave.message,
              case let .messageActionChatDeleteUser(deleted) = leaveMessage.action
        else { Issue.record("no leave message for Alice"); return }
        #expect(deleted.userId == 1003 && leave.ptsCount == 1)

        guard case let .chatInviteJoinResultOk(joined) = try await carol.call(API.functions.channels.JoinChannel(channel: lounge)),
              case let .updates(answer) = joined.updates
        else { Issue.record("join"); return }
        let own = answer.updates.compactMap { update -> API.Message.MessageService? in
            if case let .updateNewChannelMessage(new) = update, case let .messageService(service) = new.message { return service }
            return nil
        }
        guard case let .messageActionChatAddUser(added)? = own.first?.action else { Issue.record("no join message in \(answer)"); return }
        #expect(added.users == [1003] && own.first?.out == true)
        guard case let .updates(pushed) = try await alice.nextPush(), case let .updateNewChannelMessage(join)? = pushed.updates.first
        else { Issue.record("no join push"); return }
        #expect(join.pts == leave.pts + 1)
        for client in [alice, carol] { await client.close() }
        try await harness.stop()
    }

    /// `channelMessagesFilter`: events about messages outside the ranges are left out, deletes keep their ids in range,
    /// `exclude_new_messages` drops new messages; the empty filter keeps everything.
    @Test func messageFiltersKeepOnlyTheirRanges() throws {
        func new(_ id: Int32) -> API.Update {
            .updateNewChannelMessage(.init(message: .message(.init(id: id, peerId: .peerChannel(.init(channelId: 1)), date: 1, message: "m")),
                                           pts: id, ptsCount: 1))
        }
        let ranges = API.ChannelMessagesFilter.channelMessagesFilter(.init(ranges: [.messageRange(.init(minId: 10, maxId: 20)),
                                                                                   .messageRange(.init(minId: 30, maxId: 30))]))
        let filter = try MessageFilter(ranges)
        #expect(filter.apply(new(15)) != nil && filter.apply(new(30)) != nil)
        #expect(filter.apply(new(25)) == nil && filter.apply(new(9)) == nil)
        let delete = API.Update.updateDeleteChannelMessages(.init(channelId: 1, messages: [5, 12, 30, 40], pts: 3, ptsCount: 4))
        guard case let .updateDeleteChannelMessages(kept)? = filter.apply(delete) else { Issue.record("delete dropped"); return }
        #expect(kept.messages == [12, 30])
        #expect(filter.apply(.updateDeleteChannelMessages(.init(channelId: 1, messages: [1], pts: 3, ptsCount: 1))) == nil)
        let excluding = try MessageFilter(.channelMessagesFilter(.init(excludeNewMessages: true, ranges: [.messageRange(.init(minId: 1, maxId: 99))])))
        #expect(excluding.apply(new(15)) == nil)
        #expect(try MessageFilter(.channelMessagesFilterEmpty(.init())).apply(new(25)) != nil)
    }
}
