import MTProto
import Foundation
import SyncTesting
import Testing
@testable import Postbox

struct HoleSetTests {
    @Test func insertMergesAndRemoveSplits() {
        var set = HoleSet([1...5, 10...12])
        set.insert(6...9)
        #expect(set.ranges == [1...12])
        set.remove(4...7)
        #expect(set.ranges == [1...3, 8...12])
        set.insert(14...20)
        #expect(set.ranges == [1...3, 8...12, 14...20])
        set.insert(13...13)
        #expect(set.ranges == [1...3, 8...20])
        set.remove(1...100)
        #expect(set.isEmpty)
    }

    /// Random inserts and removes agree with a plain set of ids.
    @Test(arguments: 1...20)
    func matchesASetOfIDs(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        var holes = HoleSet()
        var model = Set<Int32>()
        for _ in 0..<200 {
            let a = Int32(rng.next() % 60) + 1
            let b = a + Int32(rng.next() % 10)
            if rng.next() % 2 == 0 {
                holes.insert(a...b)
                model.formUnion(a...b)
            } else {
                holes.remove(a...b)
                model.subtract(a...b)
            }
            #expect(Set(holes.ranges.flatMap { Array($0) }) == model)
            #expect(zip(holes.ranges, holes.ranges.dropFirst()).allSatisfy { $0.upperBound + 1 < $1.lowerBound })
        }
    }
}

struct StoredHoleTests {
    @Test func newPeersStartAsOneHoleInEverySpaceAndFillsApplyToTags() async throws {
        let postbox = try TemporaryStore().open()
        let everywhere = HoleKey(peer: alice, namespace: 0, space: .everywhere)
        let photos = HoleKey(peer: alice, namespace: 0, space: .tag(MessageTags(rawValue: 1)))
        _ = try await postbox.transaction { tx in try tx.addMessages([message(alice, 100)]) }
        #expect(try await postbox.read { try $0.holes(everywhere) } == [SeedConfiguration.allIDs])
        #expect(try await postbox.read { try $0.holes(photos) } == [SeedConfiguration.allIDs])

        let (_, changes) = try await postbox.transaction { tx in try tx.removeHole(everywhere, 50...150) }
        #expect(changes.holes[everywhere] == [.remove(50...150)])
        #expect(changes.holes[photos] == [.remove(50...150)])
        let (holes, inside, outside) = try await postbox.read { tx in
            (try tx.holes(everywhere), try tx.hole(containing: 40, in: everywhere), try tx.hole(containing: 100, in: everywhere))
        }
        #expect(holes == [1...49, 151...(Int32.max - 1)])
        #expect(inside == 1...49)
        #expect(outside == nil)
        let (_, merged) = try await postbox.transaction { tx in try tx.addHole(everywhere, 50...150) }
        #expect(merged.holes[everywhere] == [.insert(50...150)])
        #expect(try await postbox.read { try $0.holes(everywhere) } == [SeedConfiguration.allIDs])
    }
}

struct OperationLogTests {
    @Test func mergedOrderAcrossPeersSurvivesARestart() async throws {
        let store = TemporaryStore()
        do {
            let postbox = try store.open()
            _ = try await postbox.transaction { tx in
                try tx.appendOperation(peer: alice, tag: 1, contents: [1])
                try tx.appendOperation(peer: bob, tag: 1, contents: [2])
                try tx.appendOperation(peer: alice, tag: 1, contents: [3])
                try tx.appendOperation(peer: alice, tag: 2, contents: [9])
            }
            _ = try await postbox.transaction { tx in try tx.removeOperation(peer: bob, tag: 1, localIndex: 1) }
        }
        let postbox = try store.open()
        _ = try await postbox.transaction { tx in try tx.appendOperation(peer: bob, tag: 1, contents: [4]) }
        let entries = try await postbox.read { try $0.operations(tag: 1) }
        #expect(entries.map(\.contents) == [[1], [3], [4]])
        // Indices are never reused, even after the entry holding them was removed and the store reopened.
        #expect(entries.map(\.localIndex) == [1, 2, 2])
        #expect(entries.map(\.mergedIndex) == [1, 3, 4])   // per tag: 1, 2 (removed), 3, then 4 after the restart
    }
}

struct SeedTests {
    @Test func aNewStoreStartsWithTheWholeChatListUnknown() async throws {
        let postbox = try TemporaryStore().open()
        var updates = postbox.view(ChatListHoleView()).makeAsyncIterator()
        #expect(try await updates.next()?.snapshot == Int32.max)
        _ = try await postbox.transaction { tx in try tx.setChatListHole(1_000) }
        #expect(try await updates.next()?.snapshot == 1_000)
        _ = try await postbox.transaction { tx in try tx.setChatListHole(nil) }
        #expect(try await updates.next()?.snapshot == nil)
    }

    @Test func tagsAddedToTheSeedGetHolesForExistingPeers() async throws {
        let store = TemporaryStore()
        do {
            let postbox = try store.open(SeedConfiguration(holeNamespaces: [0], holeTags: []))
            _ = try await postbox.transaction { tx in try tx.addMessages([message(alice, 1)]) }
        }
        let music = MessageTags(rawValue: 8)
        let upgraded = try store.open(SeedConfiguration(holeNamespaces: [0], holeTags: [music]))
        let key = HoleKey(peer: alice, namespace: 0, space: .tag(music))
        #expect(try await upgraded.read { try $0.holes(key) } == [SeedConfiguration.allIDs])
        // Reopening with the same seed adds nothing again.
        _ = try await upgraded.transaction { tx in try tx.removeHole(key, 1...10) }
        let reopened = try store.open(SeedConfiguration(holeNamespaces: [0], holeTags: [music]))
        #expect(try await reopened.read { try $0.holes(key) } == [11...(Int32.max - 1)])
    }
}
