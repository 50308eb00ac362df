import Foundation
import GRDB
import SyncTesting
import Testing
@testable import Postbox

/// A store in a fresh temporary directory, removed when the test ends.
final class TemporaryStore {
    let directory: String
    var path: String { directory + "/postbox.sqlite" }

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("postbox-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func open(_ seed: SeedConfiguration = SeedConfiguration(holeNamespaces: [0], holeTags: [MessageTags(rawValue: 1)])) throws -> Postbox {
        try Postbox.open(at: path, seed: seed)
    }
}

let alice = PeerID(namespace: 0, id: 1)
let bob = PeerID(namespace: 0, id: 2)
let news = PeerID(namespace: 2, id: 4242)

func message(_ peer: PeerID, _ id: Int32, incoming: Bool = true, tags: MessageTags = [], text: String? = nil) -> Message {
    Message(id: MessageID(peer: peer, namespace: 0, id: id), timestamp: 1_000 + id, flags: incoming ? [.incoming] : [],
            tags: tags, author: incoming ? peer : nil, text: text ?? "message \(id)")
}

/// Takes a store back to its tables before version 4 (the caller sets the version).
func downgradeToVersion3(_ db: Database) throws {
    try db.execute(sql: "DROP TABLE peer_about; DROP TABLE kind_notification_settings; ALTER TABLE peers DROP COLUMN default_banned_rights")
}

/// Takes a store back to its tables before version 3 (the caller sets the version).
func downgradeToVersion2(_ db: Database) throws {
    try downgradeToVersion3(db)
    try db.execute(sql: "DROP TABLE peers; ALTER TABLE legacy_peers RENAME TO peers; DROP TABLE participants")
    for column in MessageHeaderColumns.names { try db.execute(sql: "ALTER TABLE messages DROP COLUMN \(column)") }
}

struct StoreOpeningTests {
    @Test func createsReopensAndKeepsData() async throws {
        let store = TemporaryStore()
        do {
            let postbox = try store.open()
            _ = try await postbox.transaction { tx in
                try tx.addMessages([message(alice, 1)])
                try tx.setCursor([1, 2, 3])
            }
        }
        let reopened = try store.open()
        let (stored, cursor, version) = try await reopened.read { tx in
            (try tx.message(MessageID(peer: alice, namespace: 0, id: 1)), try tx.cursor, tx.transactionVersion)
        }
        #expect(stored == message(alice, 1))
        #expect(cursor == [1, 2, 3])
        #expect(version == 1)
    }

    /// A version-3 store keeps its peers and gains bios, default restrictions and settings per kind of chat.
    @Test func aVersion3StoreGainsPeerDetails() async throws {
        let store = TemporaryStore()
        do {
            let postbox = try store.open()
            _ = try await postbox.transaction { try $0.updatePeer(.group(GroupPeer(id: PeerID(namespace: 1, id: 5), title: "G"))) }
        }
        let queue = try DatabaseQueue(path: store.path)
        try await queue.write { db in
            try downgradeToVersion3(db)
            try db.execute(sql: "PRAGMA user_version = 3")
        }
        try queue.close()
        let postbox = try store.open()
        let group = PeerID(namespace: 1, id: 5)
        _ = try await postbox.transaction { transaction in
            try transaction.updatePeer(.group(GroupPeer(id: group, title: "G", defaultBannedRights: 1 << 1)))
            try transaction.setAbout(alice, "a bio")
            try transaction.setNotificationSettings(ChatKind.groups, NotificationSettings(muteUntil: 9))
        }
        let (stored, about, settings) = try await postbox.read { tx in
            (try tx.peer(group), try tx.about(alice), try tx.notificationSettings(ChatKind.groups))
        }
        #expect(stored == .group(GroupPeer(id: group, title: "G", defaultBannedRights: 1 << 1)))
        #expect(about == "a bio" && settings == NotificationSettings(muteUntil: 9))
    }

    /// A version-1 store (before contacts) keeps its data and gains the contact and blocked-peer tables, with views.
    @Test func aVersion1StoreIsMigrated() async throws {
        let store = TemporaryStore()
        do {
            let postbox = try store.open()
            _ = try await postbox.transaction { try $0.addMessages([message(alice, 1)]) }
        }
        let queue = try DatabaseQueue(path: store.path)
        try await queue.write { db in
            try downgradeToVersion2(db)
            try db.execute(sql: """
                DROP TABLE contacts; DROP TABLE blocked_peers; DROP TABLE drafts; DROP TABLE notification_settings; PRAGMA user_version = 1
                """)
        }
        try queue.close()
        let postbox = try store.open()
        let contacts = postbox.view(ContactsView())
        _ = try await postbox.transaction { transaction in
            try transaction.setContact(ContactEntry(peer: bob, firstName: "Bob", isMutual: true))
            try transaction.setBlocked(alice, true)
        }
        let (kept, blocked) = try await postbox.read { tx in
            (try tx.message(MessageID(peer: alice, namespace: 0, id: 1)), try tx.blockedPeers())
        }
        #expect(kept == message(alice, 1) && blocked == [alice])
        var snapshots = contacts.makeAsyncIterator()
        var latest = try await snapshots.next()?.snapshot
        while latest?.isEmpty == true { latest = try await snapshots.next()?.snapshot }
        #expect(latest == [ContactEntry(peer: bob, firstName: "Bob", isMutual: true)], "the live view shows the new contact")
        let version = try await DatabaseQueue(path: store.path).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == Schema.version)
    }

    /// A version-2 store (peers as the engine's opaque bytes) keeps them aside for the engine to convert, and stores
    /// typed peers from then on, with their view.
    @Test func aVersion2StoreKeepsItsPeersForConversion() async throws {
        let store = TemporaryStore()
        do { _ = try store.open() }
        let queue = try DatabaseQueue(path: store.path)
        try await queue.write { db in
            try downgradeToVersion2(db)
            try db.execute(sql: "INSERT INTO peers (peer, data) VALUES (\(alice.rawValue), x'0102'); PRAGMA user_version = 2")
        }
        try queue.close()
        let postbox = try store.open()
        let (legacy, typed) = try await postbox.read { tx in (try tx.legacyPeers(), try tx.allPeers()) }
        #expect(legacy.map(\.0) == [alice] && legacy.first?.1 == [1, 2] && typed.isEmpty)
        let user = UserPeer(id: alice, accessHash: -5, firstName: "Alice", lastName: "Liddell", username: "alice", phone: "15550001",
                            flags: [.contact, .mutualContact], presence: .offline(wasOnline: 1_700_000_000))
        var views = postbox.subscribe(PeerView(peer: alice)).makeAsyncIterator()
        #expect(try await views.next() == .some(nil))
        _ = try await postbox.transaction { tx in
            try tx.updatePeer(.user(user))
            try tx.removeLegacyPeers()
        }
        #expect(try await views.next() == .user(user))
        #expect(try await postbox.read { try $0.legacyPeers() }.isEmpty)
        let version = try await DatabaseQueue(path: store.path).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == Schema.version)
    }

    @Test func newerSchemaIsATypedError() throws {
        let store = TemporaryStore()
        let queue = try DatabaseQueue(path: store.path)
        try queue.write { try $0.execute(sql: "PRAGMA user_version = 99") }
        #expect(throws: PostboxError.newerSchema(found: 99, supported: Schema.version)) { try store.open() }
    }

    @Test func garbageAndTruncatedFilesAreTypedErrors() throws {
        let store = TemporaryStore()
        try Data((0..<8192).map { UInt8($0 % 251) }).write(to: URL(fileURLWithPath: store.path))
        #expect(throws: PostboxError.self) { try store.open() }

        let truncated = TemporaryStore()
        _ = try truncated.open()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: truncated.path))
        try? FileManager.default.removeItem(atPath: truncated.path + "-wal")
        try? FileManager.default.removeItem(atPath: truncated.path + "-shm")
        try bytes.prefix(50).write(to: URL(fileURLWithPath: truncated.path))
        #expect(throws: PostboxError.self) { try truncated.open() }
    }
}

struct TransactionTests {
    struct Abort: Error {}

    @Test func aThrowWritesNothing() async throws {
        let store = TemporaryStore()
        let postbox = try store.open()
        await #expect(throws: Abort.self) {
            _ = try await postbox.transaction { tx in
                try tx.addMessages([message(alice, 1)])
                try tx.appendOperation(peer: alice, tag: 1, contents: [1])
                throw Abort()
            }
        }
        let (stored, operations, version, holes) = try await postbox.read { tx in
            (try tx.message(MessageID(peer: alice, namespace: 0, id: 1)), try tx.operations(tag: 1), tx.transactionVersion,
             try tx.holes(HoleKey(peer: alice, namespace: 0, space: .everywhere)))
        }
        #expect(stored == nil && operations.isEmpty && version == 0 && holes.isEmpty)
    }

    @Test func onlyNonEmptyCommitsBumpTheVersion() async throws {
        let postbox = try TemporaryStore().open()
        let (_, empty) = try await postbox.transaction { _ in () }
        #expect(empty.isEmpty)
        let (_, changes) = try await postbox.transaction { tx in try tx.updatePeer(named(alice, "Alice")) }
        #expect(changes.peers == [alice])
        #expect(try await postbox.read { $0.transactionVersion } == 1)
    }
}

struct MessageTests {
    @Test func addUpdateRemoveAndRecordEachOperation() async throws {
        let postbox = try TemporaryStore().open()
        let (_, inserted) = try await postbox.transaction { tx in try tx.addMessages([message(alice, 1), message(alice, 2)]) }
        #expect(inserted.messages[alice] == [.insert(message(alice, 1)), .insert(message(alice, 2))])
        let (_, updated) = try await postbox.transaction { tx in
            try tx.updateMessage(MessageID(peer: alice, namespace: 0, id: 2)) { $0.text = "edited" }
        }
        #expect(updated.messages[alice] == [.update(message(alice, 2, text: "edited"))])
        let (_, removed) = try await postbox.transaction { tx in try tx.removeMessages([MessageID(peer: alice, namespace: 0, id: 1)]) }
        #expect(removed.messages[alice] == [.remove(MessageID(peer: alice, namespace: 0, id: 1))])
    }

    /// The insert binds values through SQLite's C API: text with NUL characters and non-ASCII, empty and binary
    /// attributes and a missing author come back exactly.
    @Test func unusualValuesSurviveTheDirectInsert() async throws {
        let postbox = try TemporaryStore().open()
        let odd = [
            Message(id: MessageID(peer: alice, namespace: 0, id: 1), timestamp: -5, flags: [], tags: [], author: nil,
                    text: "a\u{0}b — ünïcødé 🙂", attributes: []),
            Message(id: MessageID(peer: alice, namespace: 0, id: 2), timestamp: Int32.max, flags: [.incoming], tags: [],
                    author: bob, text: "", attributes: [0, 255, 0]),
        ]
        _ = try await postbox.transaction { tx in try tx.addMessages(odd) }
        let stored = try await postbox.read { tx in try odd.map { try tx.message($0.id) } }
        #expect(stored == odd)
    }

    /// One batch mixing peers and repeating an id: each peer's unread count and top message are what one-by-one
    /// application gives, and the change record keeps each peer's order.
    @Test func aMixedBatchEqualsOneByOneApplication() async throws {
        let batch = [message(alice, 1), message(bob, 7), message(alice, 3), message(alice, 1, text: "again"),
                     message(bob, 2, incoming: false), message(alice, 2)]
        let batched = try TemporaryStore().open()
        let (_, changes) = try await batched.transaction { tx in try tx.addMessages(batch) }
        #expect(changes.messages[alice] == [.insert(message(alice, 1)), .insert(message(alice, 3)),
                                            .update(message(alice, 1, text: "again")), .insert(message(alice, 2))])
        #expect(changes.messages[bob] == [.insert(message(bob, 7)), .insert(message(bob, 2, incoming: false))])
        let single = try TemporaryStore().open()
        for item in batch { _ = try await single.transaction { tx in try tx.addMessages([item]) } }
        for postbox in [batched, single] {
            let (states, entries) = try await postbox.read { tx in
                (try [alice, bob].map { try tx.readState($0, namespace: 0) }, try [alice, bob].map { try tx.chatListEntry($0) })
            }
            #expect(states.map(\.unreadCount) == [3, 1])
            #expect(entries.map { $0?.topMessage?.id.id } == [3, 7])
        }
    }

    @Test func historyQueriesByDirectionAndTag() async throws {
        let postbox = try TemporaryStore().open()
        let photo = MessageTags(rawValue: 1)
        _ = try await postbox.transaction { tx in
            try tx.addMessages((1...20).map { message(alice, $0, tags: $0 % 5 == 0 ? photo : []) } + [message(bob, 1)])
        }
        let anchor = message(alice, 10).index
        let (older, newer, photos) = try await postbox.read { tx in
            (try tx.messages(peer: alice, namespace: 0, from: anchor, direction: .older, limit: 3),
             try tx.messages(peer: alice, namespace: 0, from: anchor, direction: .newer, limit: 3),
             try tx.messages(peer: alice, namespace: 0, from: message(alice, 21).index, direction: .older, limit: 10, tag: photo))
        }
        #expect(older.map(\.id.id) == [9, 8, 7])
        #expect(newer.map(\.id.id) == [11, 12, 13])
        #expect(photos.map(\.id.id) == [20, 15, 10, 5])
    }

    @Test func unreadCountsAndChatListFollowMessages() async throws {
        let postbox = try TemporaryStore().open()
        _ = try await postbox.transaction { tx in
            try tx.addMessages([message(alice, 1), message(alice, 2), message(alice, 3, incoming: false), message(bob, 1)])
            try tx.setPinned(bob, index: 0)
        }
        var (state, list) = try await postbox.read { tx in (try tx.readState(alice, namespace: 0), try tx.chatList(limit: 10)) }
        #expect(state.unreadCount == 2)
        #expect(list.map(\.peer) == [bob, alice])
        #expect(list[1].topMessage == message(alice, 3).index)

        (state, list) = try await postbox.transaction { tx in
            try tx.applyIncomingReadMaxID(alice, namespace: 0, maxID: 1)
            try tx.removeMessages([MessageID(peer: alice, namespace: 0, id: 3)])
            return (try tx.readState(alice, namespace: 0), try tx.chatList(limit: 10))
        }.result
        #expect(state.unreadCount == 1 && state.maxIncomingReadID == 1)
        #expect(list[1].topMessage == message(alice, 2).index)
        let unchanged = try await postbox.transaction { tx in
            try tx.applyIncomingReadMaxID(alice, namespace: 0, maxID: 0)   // never moves back
            return try tx.readState(alice, namespace: 0)
        }.result
        #expect(unchanged.maxIncomingReadID == 1)
    }
}

struct FullDiskTests {
    /// SQLite reports a full disk as SQLITE_FULL; the store turns it into a typed error, writes nothing of the
    /// failed transaction, emits nothing to views, and keeps working for smaller transactions.
    @Test func aFullDiskIsATypedErrorWithNoPartialWrites() async throws {
        let store = TemporaryStore()
        do { _ = try store.open() }   // create the schema without a cap
        let postbox = try Postbox.open(at: store.path, seed: SeedConfiguration(), maximumPageCount: 40)
        _ = try await postbox.transaction { tx in try tx.addMessages([message(alice, 1)]) }
        var updates = postbox.view(MessageHistoryView(peer: alice, namespace: 0, count: 10)).makeAsyncIterator()
        _ = try await updates.next()
        let big = (2...400).map { id in
            Message(id: MessageID(peer: alice, namespace: 0, id: Int32(id)), timestamp: Int32(id), flags: [.incoming],
                    text: String(repeating: "x", count: 2_000))
        }
        do {
            _ = try await postbox.transaction { tx in try tx.addMessages(big) }
            Issue.record("400 messages of 2 KB fit in 40 pages")
        } catch let error as PostboxError {
            guard case .writeFailed = error else { Issue.record("unexpected \(error)"); return }
        }
        let (count, unread, version) = try await postbox.read { tx in
            (try tx.messages(peer: alice, namespace: 0, from: message(alice, 1000).index, direction: .older, limit: 1_000).count,
             try tx.readState(alice, namespace: 0).unreadCount, tx.transactionVersion)
        }
        #expect(count == 1 && unread == 1 && version == 1)
        // Still usable, and the view sees only the commit that happened.
        _ = try await postbox.transaction { tx in try tx.addMessages([message(alice, 2)]) }
        #expect(try await updates.next()?.snapshot.messages.map(\.id.id) == [1, 2])
    }
}
