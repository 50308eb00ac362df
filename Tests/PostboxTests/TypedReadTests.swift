import Foundation
import Testing
@testable import Postbox

struct TypedReadTests {
    @Test func getReadsOneToFourItemsConsistently() async throws {
        let postbox = try TemporaryStore().open()
        _ = try await postbox.transaction { tx in
            try tx.addMessages([message(alice, 1), message(bob, 2)])
            try tx.updatePeer(named(alice, "1"))
            try tx.setCursor([9])
        }
        let one = try await postbox.get(MessageView(id: message(alice, 1).id))
        #expect(one == message(alice, 1))
        let (peer, cursor) = try await postbox.get(PeerView(peer: alice), CursorView())
        #expect(peer == named(alice, "1") && cursor == [9])
        let (a, b, state) = try await postbox.get(MessageView(id: message(alice, 1).id), MessageView(id: message(bob, 2).id),
                                                  ReadStateView(peer: alice, namespace: 0))
        #expect(a?.id.id == 1 && b?.id.id == 2 && state.unreadCount == 1)
        let four = try await postbox.get(PeerView(peer: alice), PeerView(peer: bob), CursorView(), ChatListView(count: 5))
        #expect(four.0 == named(alice, "1") && four.1 == nil && four.2 == [9] && four.3.count == 2)
        let map = try await postbox.get(MapView([alice, bob]) { ReadStateView(peer: $0, namespace: 0) })
        #expect(map[alice]?.unreadCount == 1 && map[bob]?.unreadCount == 1)
    }

    /// Every kind of peer reads back as stored, in key order; a row of a kind this build does not know reads as none;
    /// the presences view follows the users told and leaves out the others.
    @Test func typedPeersRoundTripAndPresencesFollowUsers() async throws {
        let postbox = try TemporaryStore().open()
        let group = PeerID(namespace: 1, id: 40), channel = PeerID(namespace: 2, id: 50), odd = PeerID(namespace: 3, id: 60)
        let peers: [Peer] = [
            .user(UserPeer(id: alice, accessHash: .min, firstName: "Алиса", lastName: "", username: nil, phone: "15550001",
                           flags: [.isSelf], presence: .online(expires: 1_800_000_000))),
            .user(UserPeer(id: bob, accessHash: nil, firstName: "Bob", flags: [.min, .bot], presence: nil)),
            .group(GroupPeer(id: group, title: "tea", participantsCount: 3, flags: [.creator, .deactivated])),
            .channel(ChannelPeer(id: channel, accessHash: .max, title: "news", username: "news", participantsCount: nil,
                                 flags: [.broadcast, .left], adminRights: 0x8000_0001, bannedRights: nil)),
        ]
        var presences = postbox.subscribe(PresencesView(peers: [alice, bob])).makeAsyncIterator()
        #expect(try await presences.next() == [:])
        _ = try await postbox.transaction { tx in
            try tx.updatePeers(peers.reversed())
            try tx.db.execute(sql: "INSERT INTO peers (peer, kind, name, last_name, flags) VALUES (?, 9, 'future', '', 0)",
                              arguments: [odd.rawValue])
        }
        #expect(try await presences.next() == [alice: .online(expires: 1_800_000_000)])
        let (all, unknown) = try await postbox.read { tx in (try tx.allPeers(), try tx.peer(odd)) }
        #expect(all == peers && unknown == nil)
        _ = try await postbox.transaction { tx in
            try tx.updatePeer(.user(UserPeer(id: bob, firstName: "Bob", presence: .lastWeek)))
        }
        #expect(try await presences.next() == [alice: .online(expires: 1_800_000_000), bob: .lastWeek])
    }

    /// Reply and forward headers are stored with the message, replaced with it, and read back by every read.
    @Test func messageHeadersRoundTrip() async throws {
        let postbox = try TemporaryStore().open()
        let channel = PeerID(namespace: 2, id: 50)
        let forwarded = {
            var message = message(alice, 2)
            message.reply = ReplyHeader(messageID: 1, peer: channel, threadTopID: 9)
            message.forward = ForwardHeader(author: channel, date: 77, source: MessageID(peer: channel, namespace: 0, id: 400))
            return message
        }()
        _ = try await postbox.transaction { tx in try tx.addMessages([message(alice, 1), forwarded]) }
        #expect(try await postbox.get(MessageView(id: forwarded.id)) == forwarded)
        #expect(try await postbox.get(MessageView(id: message(alice, 1).id))?.reply == nil)
        let edited = {
            var message = forwarded
            message.reply = ReplyHeader(messageID: 1)
            message.forward = ForwardHeader(author: nil, date: 78)
            return message
        }()
        _ = try await postbox.transaction { tx in _ = try tx.updateMessage(forwarded.id) { $0 = edited } }
        let history = try await postbox.read { try $0.allMessages(peer: alice, namespace: 0) }
        #expect(history.last == edited)
    }

    /// Member lists are kept per chat, ordered creator, admins, members by join date, shown live, and emptied with
    /// everything else.
    @Test func memberListsAreKeptPerChatAndViewed() async throws {
        let postbox = try TemporaryStore().open()
        let group = PeerID(namespace: 1, id: 40)
        var view = postbox.subscribe(ParticipantsView(chat: group)).makeAsyncIterator()
        #expect(try await view.next() == [])
        _ = try await postbox.transaction { tx in
            try tx.replaceParticipants(of: group, [Participant(peer: bob, inviter: alice, date: 5), Participant(peer: alice, role: .creator)])
            try tx.replaceParticipants(of: PeerID(namespace: 1, id: 41), [Participant(peer: bob)])
        }
        #expect(try await view.next() == [Participant(peer: alice, role: .creator), Participant(peer: bob, inviter: alice, date: 5)])
        _ = try await postbox.transaction { tx in
            try tx.setParticipant(Participant(peer: bob, role: .admin, date: 5), in: group)
            try tx.removeParticipant(alice, from: group)
        }
        #expect(try await view.next() == [Participant(peer: bob, role: .admin, date: 5)])
        _ = try await postbox.transaction { try $0.removeAllData() }
        #expect(try await view.next() == [])
    }

    @Test func subscribeDeliversConsistentTuplesAndMaps() async throws {
        let postbox = try TemporaryStore().open()
        var pairs = postbox.subscribe(PeerView(peer: alice), ReadStateView(peer: alice, namespace: 0)).makeAsyncIterator()
        let initial = try #require(try await pairs.next())
        #expect(initial.0 == nil && initial.1.unreadCount == 0)
        _ = try await postbox.transaction { tx in
            try tx.updatePeer(named(alice, "5"))
            try tx.addMessages([message(alice, 1)])
        }
        let both = try #require(try await pairs.next())
        #expect(both.0 == named(alice, "5") && both.1.unreadCount == 1)   // one snapshot with both changes

        var map = postbox.subscribe(MapView([alice, bob]) { PeerView(peer: $0) }).makeAsyncIterator()
        _ = try await map.next()
        _ = try await postbox.transaction { tx in try tx.updatePeer(named(bob, "7")) }
        #expect(try await map.next()?[bob] == named(bob, "7"))
    }
}

/// A user peer with a first name (what the view tests store).
func named(_ peer: PeerID, _ firstName: String) -> Peer {
    .user(UserPeer(id: peer, firstName: firstName))
}
