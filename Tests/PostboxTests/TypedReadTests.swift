import Foundation
import Testing
@testable import Postbox

struct TypedReadTests {
    @Test func getReadsOneToFourItemsConsistently() async throws {
        let postbox = try TemporaryStore().open()
        _ = try await postbox.transaction { tx in
            try tx.addMessages([message(alice, 1), message(bob, 2)])
            try tx.updatePeer(alice, data: [1])
            try tx.setCursor([9])
        }
        let one = try await postbox.get(MessageView(id: message(alice, 1).id))
        #expect(one == message(alice, 1))
        let (peer, cursor) = try await postbox.get(PeerView(peer: alice), CursorView())
        #expect(peer == [1] && cursor == [9])
        let (a, b, state) = try await postbox.get(MessageView(id: message(alice, 1).id), MessageView(id: message(bob, 2).id),
                                                  ReadStateView(peer: alice, namespace: 0))
        #expect(a?.id.id == 1 && b?.id.id == 2 && state.unreadCount == 1)
        let four = try await postbox.get(PeerView(peer: alice), PeerView(peer: bob), CursorView(), ChatListView(count: 5))
        #expect(four.0 == [1] && four.1 == nil && four.2 == [9] && four.3.count == 2)
        let map = try await postbox.get(MapView([alice, bob]) { ReadStateView(peer: $0, namespace: 0) })
        #expect(map[alice]?.unreadCount == 1 && map[bob]?.unreadCount == 1)
    }

    @Test func subscribeDeliversConsistentTuplesAndMaps() async throws {
        let postbox = try TemporaryStore().open()
        var pairs = postbox.subscribe(PeerView(peer: alice), ReadStateView(peer: alice, namespace: 0)).makeAsyncIterator()
        let initial = try #require(try await pairs.next())
        #expect(initial.0 == nil && initial.1.unreadCount == 0)
        _ = try await postbox.transaction { tx in
            try tx.updatePeer(alice, data: [5])
            try tx.addMessages([message(alice, 1)])
        }
        let both = try #require(try await pairs.next())
        #expect(both.0 == [5] && both.1.unreadCount == 1)   // one snapshot with both changes

        var map = postbox.subscribe(MapView([alice, bob]) { PeerView(peer: $0) }).makeAsyncIterator()
        _ = try await map.next()
        _ = try await postbox.transaction { tx in try tx.updatePeer(bob, data: [7]) }
        #expect(try await map.next()?[bob] == [7])
    }
}
