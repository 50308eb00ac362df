import Foundation
import MTProto
import MTProtoNIO
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// The per-session push queue: what piles up leaves merged as `updatesCombined`; a reader that stops reading gets
/// one `updatesTooLong` instead of unbounded memory.
@Suite(.timeLimit(.minutes(2)))
struct PushQueueTests {
    @Test func shortFormsMergeIntoOneUpdatesCombined() throws {
        let users: [API.User] = [.user(.init(id: 1001, firstName: "Alice")), .user(.init(id: 1002, firstName: "Bob")),
                                 .user(.init(id: 1003, firstName: "Carol"))]
        let group: [API.Chat] = [.chat(.init(id: 30_000, title: "G", photo: .chatPhotoEmpty(.init()), participantsCount: 3, date: 1, version: 1))]
        let pushes: [API.Updates] = [
            .updateShortMessage(.init(id: 7, userId: 1002, message: "in", pts: 3, ptsCount: 1, date: 100)),
            .updateShortMessage(.init(out: true, id: 8, userId: 1002, message: "out", pts: 4, ptsCount: 1, date: 101)),
            .updateShortChatMessage(.init(id: 9, fromId: 1003, chatId: 30_000, message: "group", pts: 5, ptsCount: 1, date: 102)),
            .updateShort(.init(update: .updateUserTyping(.init(userId: 1002, action: .sendMessageTypingAction(.init()))), date: 99)),
            .updates(.init(updates: [], users: users, chats: group, date: 50, seq: 0)),
            .updates(.init(updates: [], users: users, chats: group, date: 50, seq: 0)),
        ]
        let merged = try #require(UpdateMerging.combined(pushes.map { $0.serialized() }, owner: 1001))
        guard case let .updatesCombined(combined) = try API.Updates.deserialize(merged) else { Issue.record("not combined"); return }
        #expect(combined.updates.count == 4 && combined.users.count == 3 && combined.chats.count == 1 && combined.date == 102
                && combined.seqStart == 0)
        #expect(PeerReferences.missing(in: try API.Updates.deserialize(merged)).isEmpty)
        // Short forms whose peers no other push carries stay short (a container's reader looks peers up in its lists).
        #expect(UpdateMerging.combined(pushes.prefix(3).map { $0.serialized() }, owner: 1001) == nil)
        #expect(UpdateMerging.combined([pushes[0], .updates(.init(updates: [], users: Array(users.prefix(2)), chats: [], date: 50, seq: 0))]
            .map { $0.serialized() }, owner: 1001) != nil)
        let messages = combined.updates.compactMap { update -> API.Message.Message? in
            if case let .updateNewMessage(new) = update, case let .message(message) = new.message { return message }
            return nil
        }
        #expect(messages.map(\.id) == [7, 8, 9])
        #expect(messages[0].fromId == .peerUser(.init(userId: 1002)) && !messages[0].out)
        #expect(messages[1].fromId == .peerUser(.init(userId: 1001)) && messages[1].peerId == .peerUser(.init(userId: 1002)))
        #expect(messages[2].peerId == .peerChat(.init(chatId: 30_000)) && messages[2].fromId == .peerUser(.init(userId: 1003)))
        #expect(UpdateMerging.combined([pushes[0].serialized(), API.Updates.updatesTooLong(.init()).serialized()], owner: 1001) == nil)
        #expect(UpdateMerging.combined([pushes[0].serialized(), [1, 2, 3, 4]], owner: 1001) == nil)
    }

    /// Pushes with seq merge into a container naming their range (a message's push merged with a new name's keeps the
    /// name ordered); seqs that do not follow one another are sent one by one.
    @Test func mergedPushesKeepTheirSeqs() throws {
        let users: [API.User] = [.user(.init(id: 1001, firstName: "A")), .user(.init(id: 1002, firstName: "B"))]
        let renamed = { (seq: Int32) in
            API.Updates.updates(.init(updates: [.updateUserName(.init(userId: 1002, firstName: "B\(seq)", lastName: "", usernames: []))],
                                      users: users, chats: [], date: 60, seq: seq)).serialized()
        }
        let message = API.Updates.updateShortMessage(.init(id: 7, userId: 1002, message: "hi", pts: 3, ptsCount: 1, date: 61)).serialized()
        guard case let .updatesCombined(combined) = try API.Updates.deserialize(
            try #require(UpdateMerging.combined([message, renamed(4), renamed(5)], owner: 1001))) else { Issue.record("not combined"); return }
        #expect(combined.seqStart == 4 && combined.seq == 5 && combined.updates.count == 3 && combined.date == 61)
        #expect(UpdateMerging.combined([renamed(4), renamed(6)], owner: 1001) == nil, "seq 5 is not among them")
        #expect(UpdateMerging.combined([renamed(4), renamed(4)], owner: 1001) == nil)
    }

    /// A container's users are one object per user: pushes naming one user in two versions (Bob added as a contact,
    /// then Bob as a message's sender shows him, without the viewer's link) are sent one by one, or the client would
    /// read the contact change with the other version.
    @Test func pushesWithTwoVersionsOfAUserAreNotMerged() throws {
        let bob = { (contact: Bool, name: String) in API.User.user(.init(contact: contact, id: 1002, accessHash: 9, firstName: name)) }
        let added = API.Updates.updates(.init(
            updates: [.updatePeerSettings(.init(peer: .peerUser(.init(userId: 1002)), settings: .peerSettings(.init())))],
            users: [bob(true, "Bobby")], chats: [], date: 60, seq: 4)).serialized()
        let post = API.Updates.updates(.init(updates: [], users: [bob(false, "Bob")], chats: [], date: 61, seq: 0)).serialized()
        #expect(UpdateMerging.combined([added, post], owner: 1001) == nil)
        let again = API.Updates.updates(.init(updates: [], users: [bob(true, "Bobby")], chats: [], date: 61, seq: 0)).serialized()
        guard case let .updatesCombined(same) = try API.Updates.deserialize(try #require(UpdateMerging.combined([added, again], owner: 1001))) else {
            Issue.record("not combined"); return
        }
        #expect(same.users.count == 1, "the same version twice is one user")
    }

    /// A channel in two versions (the viewer's rights before and after a promotion) is not merged either; a basic
    /// group with the same id as a channel is another peer.
    @Test func pushesWithTwoVersionsOfAChatAreNotMerged() throws {
        let channel = { (title: String) in API.Chat.channel(.init(megagroup: true, id: 20_001, accessHash: 5, title: title, photo: .chatPhotoEmpty(.init()), date: 1)) }
        let before = API.Updates.updates(.init(updates: [], users: [], chats: [channel("Lounge")], date: 60, seq: 0)).serialized()
        let after = API.Updates.updates(.init(updates: [], users: [], chats: [channel("Lounge 2")], date: 61, seq: 0)).serialized()
        #expect(UpdateMerging.combined([before, after], owner: 1001) == nil)
        let group = API.Chat.chat(.init(id: 20_001, title: "Lounge 2", photo: .chatPhotoEmpty(.init()), participantsCount: 2, date: 1,
                                                    version: 1))
        let other = API.Updates.updates(.init(updates: [], users: [], chats: [group], date: 61, seq: 0)).serialized()
        guard case let .updatesCombined(both) = try API.Updates.deserialize(try #require(UpdateMerging.combined([before, other, before],
                                                                                                                owner: 1001))) else {
            Issue.record("not combined"); return
        }
        #expect(both.chats.count == 2)
    }

    /// Bob stops reading while Alice sends him 3,000 long messages: once the kernel's buffers are full the server's
    /// queue for Bob fills, is replaced by `updatesTooLong`, and when Bob reads again he finds it among fewer pushes
    /// than were sent; the connection is still usable and getDifference has every message. SQLite only: the queue is
    /// the server's memory whatever stores the messages, and 3,000 sends to one recipient take PostgreSQL minutes here.
    @Test func aReaderThatStopsGetsUpdatesTooLong() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let atBob = try await inputUser(1002, in: alice)
        try await bob.connection.setReading(false)
        let sends = 3_000
        // Random letters: pushes are gzip_packed, and repetitive text would shrink to nothing.
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<32 {
                group.addTask {
                    for _ in stride(from: lane, to: sends, by: 32) {
                        let text = String((0..<4_000).map { _ in letters.randomElement() ?? "a" })
                        _ = try await send(text, to: atBob, from: alice)
                    }
                }
            }
            try await group.waitForAll()
        }
        try await bob.connection.setReading(true)
        var received = 0
        var sawTooLong = false
        while !sawTooLong, received < sends {
            let push = try await bob.nextPush()
            switch push {
            case .updatesTooLong: sawTooLong = true
            case let .updatesCombined(combined): received += combined.updates.count
            default: received += 1
            }
        }
        #expect(sawTooLong)
        #expect(received < sends)
        #expect(try await state(of: bob).pts == Int32(sends))   // still answering, with every message in its box
        for client in [alice, bob] { await client.close() }
        try await harness.stop()
    }
}
