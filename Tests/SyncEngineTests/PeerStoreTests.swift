import Foundation
import GRDB
import Postbox
import SyncEngine
import Testing
import TL

/// Server users and chats as Postbox's typed peers: every field a view shows, rights as Telegram numbers them, "min"
/// copies never replacing full ones, and the TL rows of an older store converted when the account opens.
struct PeerStoreTests {
    static let fullAlice = API.User.user(.init(contact: true, mutualContact: true, id: 7, accessHash: 70, firstName: "Alice",
                                               lastName: "Liddell", username: "alice", phone: "15550001",
                                               status: .userStatusOffline(.init(wasOnline: 1_700_000_000))))
    static let lounge = API.Chat.channel(.init(creator: true, megagroup: true, id: 20, accessHash: 200, title: "lounge",
                                               photo: .chatPhotoEmpty(.init()), date: 1,
                                               adminRights: .chatAdminRights(.init(changeInfo: true, banUsers: true)),
                                               participantsCount: 3))

    @Test func usersAndChatsMapToTypedPeers() throws {
        let peers = StoreMapping.peers(users: [Self.fullAlice, .userEmpty(.init(id: 8))], chats: [
            Self.lounge, .chat(.init(left: true, id: 30, title: "tea", photo: .chatPhotoEmpty(.init()), participantsCount: 2, date: 1,
                                     version: 1)),
            .channelForbidden(.init(broadcast: true, id: 40, accessHash: 400, title: "gone")),
        ])
        #expect(peers == [
            .user(UserPeer(id: StoreMapping.user(7), accessHash: 70, firstName: "Alice", lastName: "Liddell", username: "alice",
                           phone: "15550001", flags: [.contact, .mutualContact], presence: .offline(wasOnline: 1_700_000_000))),
            .channel(ChannelPeer(id: StoreMapping.channel(20), accessHash: 200, title: "lounge", participantsCount: 3,
                                 flags: [.megagroup, .creator], adminRights: 1 << 0 | 1 << 4)),
            .group(GroupPeer(id: PeerID(namespace: StoreMapping.groupNamespace, id: 30), title: "tea", participantsCount: 2, flags: [.left])),
            .channel(ChannelPeer(id: StoreMapping.channel(40), accessHash: 400, title: "gone", flags: [.broadcast, .forbidden, .left])),
        ])
        #expect(StoreMapping.inputPeer(StoreMapping.user(7), stored: peers[0]) == .inputPeerUser(.init(userId: 7, accessHash: 70)))
        #expect(StoreMapping.inputPeer(StoreMapping.channel(20), stored: nil) == nil)
    }

    /// A min copy (seen in a message) keeps the stored full user's access hash, phone and name; only its presence is
    /// taken. Within one batch, a min copy named after a full one does not replace it either.
    @Test func minCopiesNeverReplaceFullOnes() async throws {
        let (store, directory) = try AccountMutationTests.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let minAlice = API.User.user(.init(min: true, id: 7, accessHash: 99, firstName: "A.", status: .userStatusRecently(.init())))
        _ = try await store.transaction { try StoreMapping.store(StoreMapping.peers(users: [Self.fullAlice], chats: []), in: $0) }
        _ = try await store.transaction { try StoreMapping.store(StoreMapping.peers(users: [minAlice], chats: []), in: $0) }
        guard case let .user(stored)? = try await store.read({ try $0.peer(StoreMapping.user(7)) }) else { Issue.record("no Alice"); return }
        #expect(stored.accessHash == 70 && stored.firstName == "Alice" && stored.phone == "15550001" && stored.presence == .recently)

        let batch = AccountMutation([.entities(users: [Self.fullAlice, minAlice], chats: [])], state: SyncState(pts: 1))
        let (fresh, freshDirectory) = try AccountMutationTests.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: freshDirectory) }
        _ = try await fresh.transaction { try batch.apply($0) }
        guard case let .user(kept)? = try await fresh.read({ try $0.peer(StoreMapping.user(7)) }) else { Issue.record("no Alice"); return }
        #expect(kept.accessHash == 70 && !kept.flags.contains(.min))
    }

    /// A store written before typed peers (schema 2: TL rows) opens with them converted, addressable at once; a row that
    /// no longer decodes is dropped.
    @Test func anOlderStoresPeersAreConvertedOnOpen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/store.sqlite"
        do { _ = try Postbox.open(at: path) }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "DROP TABLE peer_about; DROP TABLE kind_notification_settings")   // version 4
            try db.execute(sql: "DROP TABLE peers; ALTER TABLE legacy_peers RENAME TO peers; DROP TABLE participants; PRAGMA user_version = 2")
            for column in ["reply_to", "reply_peer", "reply_top", "fwd_author", "fwd_date", "fwd_peer", "fwd_namespace", "fwd_id"] {
                try db.execute(sql: "ALTER TABLE messages DROP COLUMN \(column)")
            }
            for (peer, data) in [(StoreMapping.user(7), Self.fullAlice.serialized()), (StoreMapping.channel(20), Self.lounge.serialized()),
                                 (StoreMapping.user(8), [0xDE, 0xAD])] {
                try db.execute(sql: "INSERT INTO peers (peer, data) VALUES (?, ?)", arguments: [peer.rawValue, Data(data)])
            }
        }
        try queue.close()
        let postbox = try Postbox.open(at: path)
        try await StoreMapping.convertLegacyPeers(in: postbox)
        let (peers, legacy) = try await postbox.read { tx in (try tx.allPeers(), try tx.legacyPeers()) }
        #expect(peers == StoreMapping.peers(users: [Self.fullAlice], chats: [Self.lounge]) && legacy.isEmpty)
        let knowledge = try await AccountStateManager.storedPeers(postbox)
        #expect(knowledge.users == [7: 70] && knowledge.accessHash(ofChannel: 20) == 200)
    }
}
