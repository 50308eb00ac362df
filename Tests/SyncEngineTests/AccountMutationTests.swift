import Foundation
import Postbox
import Testing
import TL
@testable import SyncEngine

/// A batch of sequencer outputs becomes one Postbox transaction: merged operations, messages in their TL form, read
/// states, deletes by common-box id, and the cursor, all or nothing.
struct AccountMutationTests {
    static let alice: Int64 = 1, bob: Int64 = 2

    static func temporaryStore() throws -> (Postbox, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return (try Postbox.open(at: directory + "/store.sqlite"), directory)
    }

    static func message(_ id: Int32, _ text: String, out: Bool = false) -> API.Message {
        .message(.init(out: out, id: id, fromId: .peerUser(.init(userId: out ? alice : bob)), peerId: .peerUser(.init(userId: bob)),
                       date: 100 + id, message: text))
    }

    static func deliver(_ update: API.Update) -> SequencerOutput { .deliver(update) }

    @Test func addThenEditIsOneAddAndAddThenDeleteIsNothing() throws {
        var mutation = AccountMutation([
            Self.deliver(.updateNewMessage(.init(message: Self.message(1, "first"), pts: 1, ptsCount: 1))),
            Self.deliver(.updateNewMessage(.init(message: Self.message(2, "gone"), pts: 2, ptsCount: 1))),
            Self.deliver(.updateEditMessage(.init(message: Self.message(1, "first, edited"), pts: 3, ptsCount: 1))),
            Self.deliver(.updateDeleteMessages(.init(messages: [2], pts: 4, ptsCount: 1))),
        ], state: SyncState(pts: 4))
        #expect(mutation.added.count == 1 && mutation.added.values.first?.text == "first, edited")
        #expect(mutation.edited.isEmpty && mutation.deleted.isEmpty)
        mutation.delete([MessageID(peer: StoreMapping.user(Self.bob), namespace: 0, id: 1)])
        #expect(mutation.added.isEmpty)
    }

    /// A message stored before the batch (a chat-list page's top message) that the batch brings again and deletes (a
    /// difference that carries both) is gone afterwards: the deterministic simulation's seed 13 kept it.
    @Test func aStoredMessageBroughtAgainAndDeletedInOneBatchIsGone() async throws {
        let (store, directory) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let channel: Int64 = 77
        let post = API.Message.message(.init(id: 1, peerId: .peerChannel(.init(channelId: channel)), date: 101, message: "top"))
        let first = AccountMutation([Self.deliver(.updateNewChannelMessage(.init(message: post, pts: 1, ptsCount: 1)))],
                                    state: SyncState(channels: [channel: 1]))
        _ = try await store.transaction { try first.apply($0) }
        let second = AccountMutation([
            Self.deliver(.updateNewChannelMessage(.init(message: post, pts: 1, ptsCount: 1))),
            Self.deliver(.updateDeleteChannelMessages(.init(channelId: channel, messages: [1], pts: 2, ptsCount: 1))),
        ], state: SyncState(channels: [channel: 2]))
        #expect(second.added.isEmpty)
        _ = try await store.transaction { try second.apply($0) }
        let id = MessageID(peer: PeerID(namespace: StoreMapping.channelNamespace, id: channel), namespace: 0, id: 1)
        let left = try await store.read { try $0.message(id) }
        #expect(left == nil)
    }

    /// A pin of a message added in the same batch is written with it; pinned then unpinned in one batch is unpinned;
    /// a pin of a stored message sets its tag and its TL flag, so a tag-filtered view lists it.
    @Test func pinsMergeInTheBatchAndTagStoredMessages() async throws {
        let (store, directory) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let chat = StoreMapping.user(Self.bob)
        let pin = { (ids: [Int32], pinned: Bool, pts: Int32) in
            Self.deliver(.updatePinnedMessages(.init(pinned: pinned, peer: .peerUser(.init(userId: Self.bob)), messages: ids, pts: pts,
                                                     ptsCount: 1)))
        }
        let first = AccountMutation([
            Self.deliver(.updateNewMessage(.init(message: Self.message(1, "kept"), pts: 1, ptsCount: 1))),
            Self.deliver(.updateNewMessage(.init(message: Self.message(2, "pinned"), pts: 2, ptsCount: 1))),
            pin([2], true, 3), pin([1], true, 4), pin([1], false, 5),
        ], state: SyncState(pts: 5))
        #expect(first.pins.isEmpty)
        _ = try await store.transaction { try first.apply($0) }
        let second = AccountMutation([pin([1], true, 6), pin([2], false, 7)], state: SyncState(pts: 7))
        #expect(second.pins.count == 2)
        let (afterFirst, afterSecond): ([Int32], [Int32]) = try await {
            let tagged = try await store.read { transaction in
                try transaction.messages(peer: chat, namespace: 0, from: MessageIndex(id: MessageID(peer: chat, namespace: 0, id: .max),
                                                                                    timestamp: .max),
                                         direction: .older, limit: 10, tag: StoreMapping.pinnedTag).map(\.id.id)
            }
            _ = try await store.transaction { try second.apply($0) }
            let now = try await store.read { transaction in
                try transaction.messages(peer: chat, namespace: 0, from: MessageIndex(id: MessageID(peer: chat, namespace: 0, id: .max),
                                                                                    timestamp: .max),
                                         direction: .older, limit: 10, tag: StoreMapping.pinnedTag).map(\.id.id)
            }
            return (tagged, now)
        }()
        #expect(afterFirst == [2] && afterSecond == [1])
        let stored = try await store.read { try $0.message(MessageID(peer: chat, namespace: 0, id: 1)) }
        guard case let .message(tl)? = stored.flatMap({ try? API.Message.deserialize($0.attributes) }) else { Issue.record("stored"); return }
        #expect(tl.pinned && stored?.tags.contains(StoreMapping.pinnedTag) == true)
    }

    @Test func aBatchAndItsCursorCommitTogether() async throws {
        let (store, directory) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = AccountMutation([
            .entities(users: [.user(.init(id: Self.bob, accessHash: 5, firstName: "Bob"))], chats: []),
            Self.deliver(.updateNewMessage(.init(message: Self.message(1, "hi"), pts: 1, ptsCount: 1))),
            Self.deliver(.updateNewMessage(.init(message: Self.message(2, "there"), pts: 2, ptsCount: 1))),
            Self.deliver(.updateNewMessage(.init(message: Self.message(3, "mine", out: true), pts: 3, ptsCount: 1))),
        ], state: SyncState(pts: 3, qts: 0, seq: 0, date: 103, channels: [43: 9]))
        _ = try await store.transaction { try first.apply($0) }
        // A later batch deletes by common-box id alone and reads the inbox.
        let second = AccountMutation([
            Self.deliver(.updateDeleteMessages(.init(messages: [2], pts: 4, ptsCount: 1))),
            Self.deliver(.updateReadHistoryInbox(.init(peer: .peerUser(.init(userId: Self.bob)), maxId: 1, stillUnreadCount: 0, pts: 5, ptsCount: 1))),
        ], state: SyncState(pts: 5, date: 104, channels: [43: 9]))
        _ = try await store.transaction { try second.apply($0) }

        let bob = StoreMapping.user(Self.bob)
        let (ids, read, cursor, peer, stored) = try await store.read { transaction in
            (try transaction.messages(peer: bob, namespace: 0, from: MessageIndex(id: MessageID(peer: bob, namespace: 0, id: 0), timestamp: 0),
                                      direction: .newer, limit: 10).map(\.id.id),
             try transaction.readState(bob, namespace: 0), try transaction.cursor, try transaction.peer(bob),
             try transaction.message(MessageID(peer: bob, namespace: 0, id: 1)))
        }
        #expect(ids == [1, 3])
        #expect(read.maxIncomingReadID == 1 && read.unreadCount == 0)
        #expect(cursor.flatMap(StoreMapping.state(fromCursor:)) == SyncState(pts: 5, date: 104, channels: [43: 9]))
        #expect(peer == .user(UserPeer(id: bob, accessHash: 5, firstName: "Bob")))
        #expect(stored.flatMap { try? API.Message.deserialize($0.attributes) } == Self.message(1, "hi"))
        #expect(stored?.flags.contains(.incoming) == true && stored?.author == bob)
    }

    /// Messages stored before `channelDifferenceTooLong` may have been edited or deleted in the skipped part: only the
    /// latest ones the answer carried stay, and the rest of the history is a hole to fetch again.
    @Test func aChannelResetKeepsOnlyTheLatestMessages() async throws {
        let (store, directory) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func post(_ id: Int32) -> API.Message {
            .message(.init(id: id, peerId: .peerChannel(.init(channelId: 43)), date: 100 + id, message: "post \(id)"))
        }
        let before = AccountMutation([1, 2].map { Self.deliver(.updateNewChannelMessage(.init(message: post($0), pts: $0, ptsCount: 1))) },
                                     state: SyncState(pts: 1, channels: [43: 2]))
        _ = try await store.transaction { try before.apply($0) }
        let reset = AccountMutation([.channelReset(43, latest: [post(9)])], state: SyncState(pts: 1, channels: [43: 30]))
        _ = try await store.transaction { try reset.apply($0) }
        let channel = StoreMapping.channel(43)
        let (ids, holes) = try await store.read { transaction in
            (try transaction.messages(peer: channel, namespace: 0, from: MessageIndex(id: MessageID(peer: channel, namespace: 0, id: 0), timestamp: 0),
                                      direction: .newer, limit: 10).map(\.id.id),
             try transaction.holes(HoleKey(peer: channel, namespace: 0, space: .everywhere)))
        }
        #expect(ids == [9])
        #expect(holes == [1...8])
    }

    @Test func aFailingBatchLeavesNoTrace() async throws {
        let (store, directory) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        struct Injected: Error {}
        let batch = AccountMutation([Self.deliver(.updateNewMessage(.init(message: Self.message(1, "hi"), pts: 1, ptsCount: 1)))],
                                    state: SyncState(pts: 1))
        await #expect(throws: Injected.self) {
            _ = try await store.transaction { transaction in
                try batch.apply(transaction)
                throw Injected()
            }
        }
        let cursor = try await store.read { try $0.cursor }
        #expect(cursor == nil)
    }
}
