import Foundation
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// What the server says beyond messages is kept in the store: a user's bio, a group's and a supergroup's default
/// restrictions, notification settings per kind of chat, and a channel fetched again after `updateChannel`.
@Suite(.timeLimit(.minutes(2)))
struct KeptDetailsTests {
    static let noSending = API.ChatBannedRights.chatBannedRights(.init(sendMessages: true, untilDate: 0))

    static func chats(of updates: API.Updates) -> [API.Chat] {
        switch updates {
        case let .updates(value): value.chats
        case let .updatesCombined(value): value.chats
        default: []
        }
    }

    static func storedPeer(_ account: Account, _ peer: PeerID) async throws -> Peer? {
        try await account.postbox.read { try $0.peer(peer) }
    }

    @Test func biosAreKept() async throws {
        try await AccountTests.withServer("kept-bio") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let alicePeer = StoreMapping.user(try #require(await alice.user?.id))
            try await alice.setProfile(about: "tea and tests")
            #expect(try await alice.storedAbout(alicePeer) == "tea and tests", "the account's own, at once")
            #expect(try await TestWorld.eventually { try await alice.pendingOperationCount == 0 })
            let bobsView = try await bob.resolve(username: "alice")
            #expect(try await bob.storedAbout(bobsView) == nil)
            #expect(try await bob.about(bobsView) == "tea and tests")
            #expect(try await bob.storedAbout(bobsView) == "tea and tests", "kept once read")
            for account in [alice, bob] { await account.close() }
        }
    }

    @Test func defaultRestrictionsOfGroupsAndSupergroupsAreKept() async throws {
        try await AccountTests.withServer("kept-rights") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let bobUser = try await alice.inputUser(try await alice.resolve(username: "bob"))
            let word = Self.noSending.flagsWord

            guard case let .invitedUsers(invited) = try await alice.network.send(API.functions.messages.CreateChat(users: [bobUser], title: "G")),
                  case let .chat(group)? = Self.chats(of: invited.updates).first else { Issue.record("a group"); return }
            let groupPeer = PeerID(namespace: StoreMapping.groupNamespace, id: group.id)
            _ = try await alice.network.send(API.functions.messages.EditChatDefaultBannedRights(
                peer: .inputPeerChat(.init(chatId: group.id)), bannedRights: Self.noSending))
            #expect(try await TestWorld.eventually {
                if case let .group(stored)? = try await Self.storedPeer(bob, groupPeer) { stored.defaultBannedRights == word } else { false }
            }, "a basic group's, from updateChatDefaultBannedRights")

            let created = try await alice.network.send(API.functions.channels.CreateChannel(megagroup: true, title: "S", about: ""))
            guard case let .channel(channel)? = Self.chats(of: created).first, let hash = channel.accessHash else { Issue.record("a supergroup"); return }
            let input = API.InputChannel.inputChannel(.init(channelId: channel.id, accessHash: hash))
            _ = try await alice.network.send(API.functions.channels.InviteToChannel(channel: input, users: [bobUser]))
            _ = try await alice.network.send(API.functions.messages.EditChatDefaultBannedRights(
                peer: .inputPeerChannel(.init(channelId: channel.id, accessHash: hash)), bannedRights: Self.noSending))
            #expect(try await TestWorld.eventually {
                if case let .channel(stored)? = try await Self.storedPeer(bob, StoreMapping.channel(channel.id)) {
                    stored.defaultBannedRights == word
                } else { false }
            }, "a supergroup's, with its updateChannel")
            for account in [alice, bob] { await account.close() }
        }
    }

    @Test func notificationSettingsPerKindOfChatAreKept() async throws {
        try await AccountTests.withServer("kept-notify") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let elsewhere = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice2", server)
            _ = try await elsewhere.network.send(API.functions.account.UpdateNotifySettings(
                peer: .inputNotifyUsers(.init()), settings: .inputPeerNotifySettings(.init(muteUntil: 2_000_000_000))))
            #expect(try await TestWorld.eventually {
                try await alice.postbox.read { try $0.notificationSettings(ChatKind.privateChats) }?.muteUntil == 2_000_000_000
            }, "another device's change, from updateNotifySettings")
            _ = try await elsewhere.network.send(API.functions.account.UpdateNotifySettings(
                peer: .inputNotifyBroadcasts(.init()), settings: .inputPeerNotifySettings(.init(silent: true))))
            let channels = try await alice.notificationSettings(of: .channels)
            #expect(channels.silent == true)
            #expect(try await alice.postbox.read { try $0.notificationSettings(ChatKind.channels) }?.silent == true, "read and stored")
            for account in [alice, elsewhere] { await account.close() }
        }
    }

    /// `updateChannel` names only the channel: it is fetched again, and the server's copy replaces the stored one.
    @Test func aChannelIsFetchedAgainAfterUpdateChannel() async throws {
        let (postbox, directory) = try AccountMutationTests.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let peer = StoreMapping.channel(77)
        _ = try await postbox.transaction { try $0.updatePeer(.channel(ChannelPeer(id: peer, accessHash: 5, title: "stale"))) }
        let asked = AsyncStream<API.functions.channels.GetChannels>.makeStream()
        let refresher = ChannelRefresher(postbox: postbox) { request in
            asked.continuation.yield(request)
            return .chats(.init(chats: [.channel(.init(megagroup: true, id: 77, accessHash: 5, title: "fresh", photo: .chatPhotoEmpty(.init()),
                                                       date: 1))]))
        }
        let (events, feed) = AsyncStream<AccountEvent>.makeStream()
        let running = Task { await refresher.run(events) }
        feed.yield(.delivered(.updateChannel(.init(channelId: 77))))
        feed.yield(.delivered(.updateChannel(.init(channelId: 78))))   // not stored: nothing to address it with
        feed.finish()
        await running.value
        asked.continuation.finish()
        var requests: [API.functions.channels.GetChannels] = []
        for await request in asked.stream { requests.append(request) }
        #expect(requests.map(\.id) == [[.inputChannel(.init(channelId: 77, accessHash: 5))]])
        guard case let .channel(stored)? = try await postbox.read({ try $0.peer(peer) }) else { Issue.record("the channel"); return }
        #expect(stored.title == "fresh" && stored.flags.contains(.megagroup))
    }
}
