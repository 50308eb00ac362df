import Foundation
import Logging
import MTProtoNIO
import Postbox
import SyncServer
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// A new device: the chat list comes from `messages.getDialogs` pages (every chat, its last message and unread count),
/// and a chat's history comes when a view opens it. And `differenceTooLong` turns what was skipped into holes.
@Suite(.timeLimit(.minutes(3)))
struct NewDeviceTests {
    @Test func aNewDeviceShowsEveryChatAndAChatsHistoryWhenOpened() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("new-device-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await AlwaysConnectedTests.start(root)
        let alice = try await Device.logIn(TestWorld.alicePhone, server: server, directory: root + "/alice")
        guard case let .resolvedPeer(found) = try await alice.network.send(API.functions.contacts.ResolveUsername(username: "bob")),
              case let .user(bobSeen)? = found.users.first else { throw AccountError.unsupportedPeer("bob") }
        let toBob = TestWorld.peer(bobSeen)
        for index in 1...5 {
            _ = try await alice.network.send(API.functions.messages.SendMessage(peer: toBob, message: "hello \(index)",
                                                                                randomId: Int64(index)))
        }
        // 250 basic groups with Bob, each with a service message as its top: three pages of dialogs.
        let bobInput = API.InputUser.inputUser(.init(userId: bobSeen.id, accessHash: bobSeen.accessHash ?? 0))
        for index in 1...250 {
            _ = try await alice.network.send(API.functions.messages.CreateChat(users: [bobInput], title: "group \(index)"))
        }
        _ = try await alice.network.send(API.functions.messages.SendMessage(peer: toBob, message: "newest", randomId: 99))

        let bob = try await AlwaysConnectedTests.logIn(TestWorld.bobPhone, root + "/bob", server)
        try await bob.chatListFilled()
        let (list, hole) = try await bob.postbox.read { (try $0.chatList(limit: 1_000), try $0.chatListHole) }
        #expect(hole == nil)
        let aliceChat = StoreMapping.user(alice.user.id)
        let groups = list.filter { $0.peer.namespace == StoreMapping.groupNamespace }
        #expect(groups.count == 250)
        #expect(list.first?.peer == aliceChat, "the newest chat first")
        #expect(Set(list.map(\.peer)).count == list.count, "no chat twice")
        let unread = try await bob.postbox.read { try $0.readState(aliceChat, namespace: StoreMapping.cloudMessages).unreadCount }
        #expect(unread == 6)

        // Only the top message is stored; the rest of the history is a hole that an open view fills.
        let stored = try await TestWorld.messages(in: bob.postbox, with: alice.user.id).map(\.text)
        #expect(stored == ["newest"])
        var view = bob.history(aliceChat, count: 20).makeAsyncIterator()
        var shown: [String] = []
        while let update = try await view.next() {
            shown = update.snapshot.messages.map(\.text)
            if update.snapshot.earlierHole == nil { break }
        }
        #expect(shown == ["hello 1", "hello 2", "hello 3", "hello 4", "hello 5", "newest"])
        // The older messages the view fetched were counted in the dialog's unread count already: scrolling counts
        // nothing again (it said 11 before).
        let unreadAfterScroll = try await bob.postbox.read { try $0.readState(aliceChat, namespace: StoreMapping.cloudMessages).unreadCount }
        #expect(unreadAfterScroll == 6)
        await bob.close()
        await alice.network.close()
        try await server.stop()
    }

    @Test func differenceTooLongTurnsWhatWasSkippedIntoHolesAndReopensTheChatList() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("too-long-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let postbox = try Postbox.open(at: path)
        let chat = StoreMapping.user(7), channel = StoreMapping.channel(9)
        let key = HoleKey(peer: chat, namespace: StoreMapping.cloudMessages, space: .everywhere)
        _ = try await postbox.transaction { transaction in
            try transaction.addMessages([
                Message(id: MessageID(peer: chat, namespace: 0, id: 40), timestamp: 100, text: "old"),
                Message(id: MessageID(peer: channel, namespace: 0, id: 3), timestamp: 100, text: "post"),
            ])
            try transaction.removeHole(key, 40...(Int32.max - 1))
            try transaction.setChatListHole(nil)
        }
        let channelKey = HoleKey(peer: channel, namespace: 0, space: .everywhere)
        let channelBefore = try await postbox.read { try $0.holes(channelKey) }
        var state = SyncState()
        state.pts = 500
        let mutation = AccountMutation([.differenceTooLong], state: state)
        _ = try await postbox.transaction { try mutation.apply($0) }
        let (holes, channelHoles, listHole) = try await postbox.read { transaction in
            (try transaction.holes(key),
             try transaction.holes(channelKey),
             try transaction.chatListHole)
        }
        #expect(holes == [1...39, 41...(Int32.max - 1)])
        #expect(channelHoles == channelBefore, "a channel's history is its own box's business")
        #expect(listHole == Int32.max)
    }
}
