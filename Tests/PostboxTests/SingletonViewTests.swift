import Foundation
import Testing
@testable import Postbox

struct SingletonViewTests {
    @Test func unsentMessagesViewFollowsTheUnsentFlagAcrossPeers() async throws {
        let postbox = try TemporaryStore().open()
        var updates = postbox.view(UnsentMessagesView()).makeAsyncIterator()
        #expect(try await updates.next()?.snapshot == [])
        var pending = message(bob, 7, incoming: false)
        pending.flags = [.unsent]
        _ = try await postbox.transaction { [pending] tx in try tx.addMessages([pending, message(alice, 1)]) }
        #expect(try await updates.next()?.snapshot == [pending.id])
        _ = try await postbox.transaction { [pending] tx in try tx.updateMessage(pending.id) { $0.flags.remove(.unsent) } }
        #expect(try await updates.next()?.snapshot == [])
    }

    @Test func historyHolesAreTheUnionOfWhatOpenViewsAskFor() async throws {
        let postbox = try TemporaryStore().open()
        _ = try await postbox.transaction { tx in try tx.addMessages((1...5).map { message(alice, $0) }) }
        var holes = postbox.historyHoles().makeAsyncIterator()
        #expect(await holes.next() == [])

        let viewTask = Task {
            for try await _ in postbox.view(MessageHistoryView(peer: alice, namespace: 0, count: 10)) {}
        }
        let key = HoleKey(peer: alice, namespace: 0, space: .everywhere)
        let opened = await holes.next()
        #expect(opened == [HoleRequest(key: key, hole: SeedConfiguration.allIDs, direction: .older, count: 10, anchor: 5),
                           HoleRequest(key: key, hole: SeedConfiguration.allIDs, direction: .newer, count: 10, anchor: 5)])

        _ = try await postbox.transaction { tx in try tx.removeHole(key, 1...5) }
        let afterFill = await holes.next()
        #expect(afterFill == [HoleRequest(key: key, hole: 6...(Int32.max - 1), direction: .newer, count: 10, anchor: 5)])

        viewTask.cancel()
        #expect(await holes.next() == [])
    }

    /// History views inside combined and map views ask for their holes like standalone ones.
    @Test(.timeLimit(.minutes(1)))
    func combinedAndMapViewsForwardTheirPartsHoleRequests() async throws {
        let postbox = try TemporaryStore().open()
        _ = try await postbox.transaction { tx in try tx.addMessages([message(alice, 1), message(bob, 1)]) }
        var holes = postbox.historyHoles().makeAsyncIterator()
        #expect(await holes.next() == [])
        let combined = CombinedView(MessageHistoryView(peer: alice, namespace: 0, count: 5), CursorView())
        let combinedTask = Task { for try await _ in postbox.view(combined) {} }
        let aliceHoles = HoleKey(peer: alice, namespace: 0, space: .everywhere)
        #expect(await holes.next()?.map(\.key) == [aliceHoles, aliceHoles])

        let map = MapView([bob]) { MessageHistoryView(peer: $0, namespace: 0, count: 5) }
        let mapTask = Task { for try await _ in postbox.view(map) {} }
        #expect(Set(await holes.next()?.map(\.key.peer) ?? []) == [alice, bob])

        combinedTask.cancel()
        #expect(Set(await holes.next()?.map(\.key.peer) ?? []) == [bob])
        mapTask.cancel()
        #expect(await holes.next() == [])
    }
}

struct ExternalCommitTests {
    /// Two independent connections to one file (as two processes would have): a view in one reflects the other's
    /// commits through the transaction-version poll.
    @Test(.timeLimit(.minutes(1)))
    func viewsSeeAnotherConnectionsCommits() async throws {
        let store = TemporaryStore()
        let reader = try store.open()
        let writer = try store.open()
        reader.startWatchingForExternalCommits(every: .milliseconds(20), waitingWith: { try await Task.sleep(for: $0) })
        var updates = reader.view(MessageHistoryView(peer: alice, namespace: 0, count: 5)).makeAsyncIterator()
        _ = try await updates.next()
        _ = try await writer.transaction { tx in try tx.addMessages([message(alice, 1)]) }
        let update = try #require(try await updates.next())   // delivered by the poll alone
        #expect(update.type == .updateVisible)
        #expect(update.snapshot.messages.map(\.id.id) == [1])
        // The reader's own next transaction also notices first, without waiting for the poll.
        _ = try await writer.transaction { tx in try tx.addMessages([message(alice, 2)]) }
        _ = try await reader.transaction { _ in () }
        #expect(try await updates.next()?.snapshot.messages.map(\.id.id) == [1, 2])
    }

    #if canImport(Glibc)
    /// With the directory's change notifications, another connection's commits are seen at once, although the
    /// backstop check would come only in a minute: an idle reader needs no polling.
    @Test(.timeLimit(.minutes(1)))
    func viewsSeeAnotherConnectionsCommitsFromTheDirectorysNotifications() async throws {
        let store = TemporaryStore()
        let reader = try store.open()
        let writer = try store.open()
        let changes = try #require(DirectoryChanges.stream((reader.path as NSString).deletingLastPathComponent))
        reader.startWatchingForExternalCommits(every: .seconds(60), fullCheckEvery: 1, changes: changes,
                                               waitingWith: { try await Task.sleep(for: $0) })
        var updates = reader.view(MessageHistoryView(peer: alice, namespace: 0, count: 5)).makeAsyncIterator()
        _ = try await updates.next()
        let started = ContinuousClock.now
        for id in Int32(1)...3 {
            _ = try await writer.transaction { tx in try tx.addMessages([message(alice, id)]) }
            #expect(try await updates.next()?.snapshot.messages.map(\.id.id) == Array(1...id))
        }
        #expect(ContinuousClock.now - started < .seconds(30))   // not the minute's backstop
    }
    #endif
}
