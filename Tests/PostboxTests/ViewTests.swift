import MTProto
import Foundation
import Synchronization
import SyncTesting
import Testing
@testable import Postbox

/// Wraps a view and counts how often the tracker reloads it.
final class CountingView<Inner: PostboxView>: PostboxView {
    let inner: Inner
    let loads = Mutex(0)
    init(_ inner: Inner) { self.inner = inner }
    var keys: Set<ViewKey> { inner.keys }
    func load(_ transaction: Transaction) throws -> Inner.Snapshot {
        loads.withLock { $0 += 1 }
        return try inner.load(transaction)
    }
}

struct ViewTests {
    @Test func historyViewYieldsInitialThenOneSnapshotPerTouchingCommit() async throws {
        let postbox = try TemporaryStore().open()
        _ = try await postbox.transaction { tx in try tx.addMessages((1...5).map { message(alice, $0) }) }
        let view = CountingView(MessageHistoryView(peer: alice, namespace: 0, count: 3))
        var updates = postbox.view(view).makeAsyncIterator()
        let initial = try #require(try await updates.next())
        #expect(initial.type == .initial)
        #expect(initial.snapshot.messages.map(\.id.id) == [3, 4, 5])
        #expect(initial.snapshot.earlierHole == SeedConfiguration.allIDs)

        _ = try await postbox.transaction { tx in try tx.addMessages([message(bob, 1)]) }   // another peer: not visited
        #expect(view.loads.withLock { $0 } == 1)
        _ = try await postbox.transaction { tx in try tx.addMessages([message(alice, 6)]) }
        let next = try #require(try await updates.next())
        #expect(next.type == .generic && next.snapshot.messages.map(\.id.id) == [4, 5, 6])
        #expect(view.loads.withLock { $0 } == 2)

        _ = try await postbox.transaction { tx in try tx.removeHole(HoleKey(peer: alice, namespace: 0, space: .everywhere), 1...6) }
        let filled = try #require(try await updates.next())
        #expect(filled.type == .fillHole)
        #expect(filled.snapshot.earlierHole == nil)
        #expect(filled.snapshot.laterHole == 7...(Int32.max - 1))
    }

    /// Only holes the window reaches are asked for: one beyond a side that shows all it can is left alone (before,
    /// the nearest hole below was asked for wherever it was, and opening a chat fetched its whole history).
    @Test func aHoleBeyondAFullWindowIsNotAskedFor() async throws {
        let postbox = try TemporaryStore().open()
        let key = HoleKey(peer: alice, namespace: 0, space: .everywhere)
        _ = try await postbox.transaction { tx in
            try tx.addMessages((10...30).map { message(alice, $0) })
            try tx.removeHole(key, 10...(Int32.max - 1))
        }
        var latest = postbox.view(MessageHistoryView(peer: alice, namespace: 0, count: 6)).makeAsyncIterator()
        #expect(try await latest.next()?.snapshot.earlierHole == nil)   // 25…30 shown; the hole 1…9 lies beyond them
        var long = postbox.view(MessageHistoryView(peer: alice, namespace: 0, count: 40)).makeAsyncIterator()
        #expect(try await long.next()?.snapshot.earlierHole == 1...9)   // 21 of 40 shown: the window reaches the hole
        var around = postbox.view(MessageHistoryView(peer: alice, namespace: 0, anchor: message(alice, 12).index, count: 10)).makeAsyncIterator()
        #expect(try await around.next()?.snapshot.earlierHole == 1...9)   // 2 older shown of 5
    }

    @Test func anchoredWindowAndTagFilter() async throws {
        let postbox = try TemporaryStore().open()
        let photo = MessageTags(rawValue: 1)
        _ = try await postbox.transaction { tx in try tx.addMessages((1...30).map { message(alice, $0, tags: $0 % 3 == 0 ? photo : []) }) }
        var around = postbox.view(MessageHistoryView(peer: alice, namespace: 0, anchor: message(alice, 15).index, count: 6)).makeAsyncIterator()
        #expect(try await around.next()?.snapshot.messages.map(\.id.id) == [12, 13, 14, 15, 16, 17])
        var photos = postbox.view(MessageHistoryView(peer: alice, namespace: 0, count: 4, tag: photo)).makeAsyncIterator()
        #expect(try await photos.next()?.snapshot.messages.map(\.id.id) == [21, 24, 27, 30])
    }

    @Test func endingTheIterationUnregisters() async throws {
        let postbox = try TemporaryStore().open()
        do {
            for try await update in postbox.view(CursorView()) {
                #expect(update.type == .initial)
                break
            }
        }
        for _ in 0..<100 where postbox.openViewCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(postbox.openViewCount == 0)
    }

    @Test func combinedViewIsOneConsistentSnapshot() async throws {
        let postbox = try TemporaryStore().open()
        var updates = postbox.view(CombinedView(ReadStateView(peer: alice, namespace: 0), ChatListView(count: 10))).makeAsyncIterator()
        _ = try await updates.next()
        _ = try await postbox.transaction { tx in try tx.addMessages([message(alice, 1)]) }
        let snapshot = try #require(try await updates.next()).snapshot
        #expect(snapshot.first.unreadCount == 1)
        #expect(snapshot.second.map(\.peer) == [alice])
    }

    /// Random transactions with several views open: after every commit, each view's latest snapshot equals a fresh
    /// load from disk.
    @Test(arguments: 1...3)
    func viewsAlwaysEqualAFreshLoad(seed: UInt64) async throws {
        let postbox = try TemporaryStore().open()
        var rng = SplitMix64(seed: seed)
        let history = MessageHistoryView(peer: alice, namespace: 0, count: 5)
        let chats = ChatListView(count: 5)
        let unread = ReadStateView(peer: alice, namespace: 0)
        let log = OperationLogView(tag: 1)
        var historyUpdates = postbox.view(history).makeAsyncIterator()
        var chatUpdates = postbox.view(chats).makeAsyncIterator()
        var unreadUpdates = postbox.view(unread).makeAsyncIterator()
        var logUpdates = postbox.view(log).makeAsyncIterator()
        var seen = (try await historyUpdates.next()!.snapshot, try await chatUpdates.next()!.snapshot,
                    try await unreadUpdates.next()!.snapshot, try await logUpdates.next()!.snapshot)
        for _ in 0..<60 {
            let peer = rng.next() % 3 == 0 ? bob : alice
            let id = Int32(rng.next() % 40) + 1
            let choice = rng.next() % 5
            _ = try await postbox.transaction { tx in
                switch choice {
                case 0, 1: try tx.addMessages([message(peer, id, incoming: id % 2 == 0)])
                case 2: try tx.removeMessages([MessageID(peer: peer, namespace: 0, id: id)])
                case 3: try tx.applyIncomingReadMaxID(peer, namespace: 0, maxID: id)
                default:
                    if id % 2 == 0 { try tx.appendOperation(peer: peer, tag: 1, contents: [UInt8(id)]) }
                    else if let first = try tx.operations(tag: 1).first { try tx.removeOperation(peer: first.peer, tag: 1, localIndex: first.localIndex) }
                }
            }
            let fresh = try await postbox.read { tx in (try history.load(tx), try chats.load(tx), try unread.load(tx), try log.load(tx)) }
            if fresh.0 != seen.0 { seen.0 = try #require(try await historyUpdates.next()).snapshot }
            if fresh.1 != seen.1 { seen.1 = try #require(try await chatUpdates.next()).snapshot }
            if fresh.2 != seen.2 { seen.2 = try #require(try await unreadUpdates.next()).snapshot }
            if fresh.3 != seen.3 { seen.3 = try #require(try await logUpdates.next()).snapshot }
            #expect(seen.0 == fresh.0 && seen.1 == fresh.1 && seen.2 == fresh.2 && seen.3 == fresh.3)
        }
    }
}
