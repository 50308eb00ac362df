import Foundation
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// Member lists in the store: read with `Account.participants(of:)` (a basic group whole, a supergroup by pages), then
/// kept current by the service messages that add and remove members, which `ParticipantsView` shows live.
@Suite(.timeLimit(.minutes(2)))
struct ParticipantsSyncTests {
    @Test func aGroupsMembersAreReadThenFollowTheServiceMessages() async throws {
        try await AccountTests.withServer("account-participants") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let aliceID = try #require(await alice.user?.id), bobID = try #require(await bob.user?.id)
            let bobPeer = try await alice.resolve(username: "bob"), carolPeer = try await alice.resolve(username: "carol")
            let inputs = try await alice.postbox.read { tx in (try tx.peer(bobPeer), try tx.peer(carolPeer)) }
            guard case let .user(bobUser)? = inputs.0, case let .user(carolUser)? = inputs.1 else { Issue.record("users"); return }
            let bobInput = API.InputUser.inputUser(.init(userId: bobPeer.id, accessHash: bobUser.accessHash ?? 0))
            let carolInput = API.InputUser.inputUser(.init(userId: carolPeer.id, accessHash: carolUser.accessHash ?? 0))
            guard case let .invitedUsers(created) = try await alice.network.send(API.functions.messages.CreateChat(users: [bobInput], title: "tea")),
                  case let .updates(updates) = created.updates, case let .chat(chat)? = updates.chats.first else {
                Issue.record("no group"); return
            }
            let group = PeerID(namespace: StoreMapping.groupNamespace, id: chat.id)
            #expect(try await TestWorld.eventually { try await bob.postbox.read { try $0.peer(group) } != nil })

            let members = try await bob.participants(of: group)
            #expect(members == [Participant(peer: StoreMapping.user(aliceID), role: .creator),
                                Participant(peer: StoreMapping.user(bobID), inviter: StoreMapping.user(aliceID), date: members.last?.date ?? 0)])
            var view = bob.postbox.subscribe(ParticipantsView(chat: group)).makeAsyncIterator()
            #expect(try await view.next()?.count == 2)

            _ = try await alice.network.send(API.functions.messages.AddChatUser(chatId: chat.id, userId: carolInput, fwdLimit: 0))
            var shown = try await view.next() ?? []
            while shown.count == 2 { shown = try await view.next() ?? [] }
            #expect(shown.map(\.peer).contains(carolPeer) && shown.count == 3, "Carol joins Bob's stored list live")
            #expect(shown.first { $0.peer == carolPeer }?.inviter == StoreMapping.user(aliceID))

            _ = try await alice.network.send(API.functions.messages.DeleteChatUser(chatId: chat.id, userId: carolInput))
            while shown.count == 3 { shown = try await view.next() ?? [] }
            #expect(!shown.map(\.peer).contains(carolPeer) && shown.count == 2, "and leaves it")
            for account in [alice, bob] { await account.close() }
        }
    }

    /// A supergroup's members come from `channels.getParticipants`: the creator first, with the users stored.
    @Test func aSupergroupsMembersAreReadFromItsPages() async throws {
        try await AccountTests.withServer("account-channel-participants") { server, root in
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let lounge = try await bob.resolve(username: "lounge")
            let members = try await bob.participants(of: lounge)
            #expect(Set(members.map(\.peer)) == [StoreMapping.user(1001), StoreMapping.user(1002), StoreMapping.user(1003)] && members.count == 3)
            #expect(members.first == Participant(peer: StoreMapping.user(1001), role: .creator))
            let stored = try await bob.postbox.read { tx in try [1001, 1003].map { try tx.peer(StoreMapping.user($0)) } }
            #expect(stored.allSatisfy { if case .user? = $0 { true } else { false } }, "the members' users are stored")
            #expect(try await bob.postbox.get(ParticipantsView(chat: lounge)) == members)
            await expectUnsupported { try await bob.participants(of: StoreMapping.user(1001)) }
            await bob.close()
        }
    }

    /// Every channel object the server sends carries the receiver's own standing, so the stored channel keeps it: the
    /// creator's @lounge stays `creator` with every right after a member's post arrives (a push used to name no
    /// standing and took it away), and a member promoted with one right stores that right from the push that tells him.
    @Test func theStoredChannelKeepsTheAccountsStandingThroughPushes() async throws {
        try await AccountTests.withServer("account-channel-standing") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let lounge = try await alice.resolve(username: "lounge")
            _ = try await bob.resolve(username: "lounge")
            func stored(_ account: Account) async throws -> ChannelPeer? {
                guard case let .channel(channel)? = try await account.postbox.read({ try $0.peer(lounge) }) else { return nil }
                return channel
            }
            _ = try await bob.send("hello from Bob", to: lounge)
            #expect(try await TestWorld.eventually {
                try await alice.postbox.read { tx in
                    try tx.latestMessages(peer: lounge, namespace: StoreMapping.cloudMessages, limit: 1).first?.text == "hello from Bob"
                }
            })
            let aliceSees = try await stored(alice)
            #expect(aliceSees?.flags.contains(.creator) == true && aliceSees?.adminRights == AdminRights.creator.rawValue)

            let bobPeer = try await alice.resolve(username: "bob")
            guard case let .user(bobUser)? = try await alice.postbox.read({ try $0.peer(bobPeer) }), let channel = aliceSees else {
                Issue.record("Bob or @lounge not stored"); return
            }
            _ = try await alice.network.send(API.functions.channels.EditAdmin(
                channel: .inputChannel(.init(channelId: lounge.id, accessHash: channel.accessHash ?? 0)),
                userId: .inputUser(.init(userId: bobPeer.id, accessHash: bobUser.accessHash ?? 0)),
                adminRights: API.ChatAdminRights(flagsWord: AdminRights.pinMessages.rawValue), rank: "Pins"))
            #expect(try await TestWorld.eventually { try await stored(bob)?.adminRights == AdminRights.pinMessages.rawValue })
            for account in [alice, bob] { await account.close() }
        }
    }

    /// Banned and departed entries are not members, and an id past Postbox's 56 bits would name another peer: none
    /// of them is stored.
    @Test func entriesThatAreNotMembersOrCannotBeStoredAreLeftOut() {
        let banned = API.ChannelParticipant.channelParticipantBanned(.init(
            peer: .peerUser(.init(userId: 5)), kickedBy: 1, date: 1, bannedRights: .chatBannedRights(.init(viewMessages: true, untilDate: 0))))
        #expect(StoreMapping.participant(from: banned) == nil)
        let restricted = API.ChannelParticipant.channelParticipantBanned(.init(
            left: false, peer: .peerUser(.init(userId: 5)), kickedBy: 1, date: 3,
            bannedRights: .chatBannedRights(.init(sendMessages: true, untilDate: 0))))
        #expect(StoreMapping.participant(from: restricted) == Participant(peer: StoreMapping.user(5), date: 3), "restricted, still a member")
        #expect(StoreMapping.participant(from: API.ChannelParticipant.channelParticipantLeft(.init(peer: .peerUser(.init(userId: 5))))) == nil)
        #expect(StoreMapping.participant(from: API.ChatParticipant.chatParticipant(.init(userId: .max, inviterId: 1, date: 1))) == nil)
        #expect(StoreMapping.participant(from: API.ChatParticipant.chatParticipantCreator(.init(userId: 7)))
                == Participant(peer: StoreMapping.user(7), role: .creator))
    }

    private func expectUnsupported(_ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected an unsupported peer")
        } catch AccountError.unsupportedPeer {
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
