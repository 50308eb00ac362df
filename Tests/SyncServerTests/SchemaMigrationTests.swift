import Foundation
import GRDB
import Testing
@testable import SyncServer
import TL

/// A data directory written by an older build opens in this one with its data intact.
struct SchemaMigrationTests {
    /// Version 3 kept idempotent sends in `sent_random_ids`; version 4 moves them to the append-only `sent_log`, and a
    /// retry of a send made before the upgrade is still recognised.
    @Test func version3SendsAreRecognisedAfterTheUpgrade() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.path + "/server.sqlite"
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try SQLiteServerSchema.migrate(db, to: 3)
            try db.execute(sql: """
                INSERT INTO sent_random_ids (user_id, random_id, message_id, pts, date, channel_id) VALUES (7, 42, 3, 5, 100, 0),
                    (7, 43, 9, 11, 101, 55)
                """)
        }
        try old.close()

        let storage = try SQLiteServerStorage(path: path)
        let (inBox, channel, unknown) = try await storage.write { tx in
            (try tx.sent(user: 7, randomID: 42), try tx.sent(user: 7, randomID: 43), try tx.sent(user: 7, randomID: 44))
        }
        #expect(inBox == SentRecord(messageID: 3, pts: 5, date: 100))
        #expect(channel == SentRecord(messageID: 9, pts: 11, date: 101, channelID: 55))
        #expect(unknown == nil)
    }

    /// Version 5 adds replies: messages stored before it read as no reply, and a reply is kept after the upgrade.
    @Test func version4MessagesReadAsNoReplyAfterTheUpgrade() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.path + "/server.sqlite"
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try SQLiteServerSchema.migrate(db, to: 4)
            try db.execute(sql: """
                INSERT INTO messages (owner, id, peer_type, peer_id, from_id, out, date, text, entities, edit_date, counterpart_id, action)
                VALUES (7, 1, 0, 8, 7, 1, 100, CAST('before' AS BLOB), x'', NULL, 1, NULL)
                """)
        }
        try old.close()

        let storage = try SQLiteServerStorage(path: path)
        let reply = StoredMessage(owner: 7, id: 2, peer: .user(8), fromID: 7, out: true, date: 101, text: "after", replyTo: 1)
        try await storage.write { try $0.upsert(reply) }
        let (before, after) = try await storage.read { tx in (try tx.message(owner: 7, id: 1), try tx.message(owner: 7, id: 2)) }
        #expect(before?.text == "before" && before?.replyTo == nil)
        #expect(after == reply)
    }

    /// Version 6 adds profiles' bios and the seq log: a user stored before it reads with no bio, and the log works.
    @Test func version5UsersReadWithNoBioAfterTheUpgrade() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.path + "/server.sqlite"
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try SQLiteServerSchema.migrate(db, to: 5)
            try db.execute(sql: """
                INSERT INTO users (id, access_hash, phone, first_name, last_name, username, home_dc, bot)
                VALUES (7, 1, '15550007', 'Old', '', 'old_user', 2, 0)
                """)
        }
        try old.close()

        let storage = try SQLiteServerStorage(path: path)
        let event = StoredSeqEvent(seq: 1, date: 100, update: [1, 2, 3])
        try await storage.write { tx in
            guard var user = try tx.user(id: 7) else { return }
            user.about = "new bio"
            try tx.update(user)
            try tx.appendSeqEvent(event, user: 7)
        }
        let (user, logged) = try await storage.read { tx in (try tx.user(id: 7), try tx.seqEvents(user: 7, since: 100, limit: 10)) }
        #expect(user?.firstName == "Old" && user?.about == "new bio")
        #expect(logged == [event])
    }

    /// Version 7 adds contact lists and blocks: a user stored before it reads as blocking nobody, and the new tables
    /// work.
    @Test func version6UsersReadAsBlockingNobodyAfterTheUpgrade() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.path + "/server.sqlite"
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try SQLiteServerSchema.migrate(db, to: 6)
            try db.execute(sql: """
                INSERT INTO users (id, access_hash, phone, first_name, last_name, username, home_dc, bot, about)
                VALUES (7, 1, '15550007', 'Old', '', 'old_user', 2, 0, ''), (8, 2, '15550008', 'Other', '', NULL, 2, 0, '')
                """)
        }
        try old.close()

        let storage = try SQLiteServerStorage(path: path)
        #expect(try await storage.read { tx in try tx.user(id: 7)?.blockedCount } == 0)
        let contact = ContactRecord(owner: 7, userID: 8, firstName: "Eight", phone: "15550008", date: 100)
        try await storage.write { tx in
            try tx.upsert(contact)
            try tx.insert(BlockRecord(owner: 8, userID: 7, date: 100))
        }
        let (contacts, blocked) = try await storage.read { tx in (try tx.contacts(owner: 7, limit: 10), try tx.block(owner: 8, user: 7)) }
        #expect(contacts == [contact] && blocked?.date == 100)
    }

    /// Version 7 kept an admin's role only: after the upgrade an admin holds the standard rights (all but adding
    /// admins) and was promoted by the creator; members and the creator keep no stored rights.
    @Test func version7AdminsHoldTheStandardRightsAfterTheUpgrade() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.path + "/server.sqlite"
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try SQLiteServerSchema.migrate(db, to: 7)
            try db.execute(sql: """
                INSERT INTO channel_members (channel_id, user_id, role, date, read_inbox_max_id)
                VALUES (5, 1, 2, 10, 0), (5, 2, 1, 11, 0), (5, 3, 0, 12, 0)
                """)
        }
        try old.close()

        let storage = try SQLiteServerStorage(path: path)
        let (creator, admin, member) = try await storage.read { tx in
            (try tx.member(channel: 5, user: 1), try tx.member(channel: 5, user: 2), try tx.member(channel: 5, user: 3))
        }
        #expect(admin?.adminRights == AdminRights.standard.rawValue && admin?.promotedBy == nil && admin?.adminRank == nil)
        #expect(admin?.has(.banUsers) == true && admin?.has(.addAdmins) == false)
        #expect(creator?.has(.addAdmins) == true && member?.has(.pinMessages) == false && member?.adminRights == 0)
    }

    /// Version 8 kept no defaults for basic groups: after the upgrade a group stored before has none, and new ones are kept.
    @Test func version8GroupsHaveNoDefaultRestrictionsAfterTheUpgrade() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.path + "/server.sqlite"
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try SQLiteServerSchema.migrate(db, to: 8)
            try db.execute(sql: "INSERT INTO chats (id, title, creator_id, date, version) VALUES (30000, 'old', 1, 10, 2)")
        }
        try old.close()

        let storage = try SQLiteServerStorage(path: path)
        let stored = try await storage.read { tx in try tx.chat(id: 30_000) }
        #expect(stored == ChatRecord(id: 30_000, title: "old", creatorID: 1, date: 10, version: 2, defaultBannedRights: 0))
        let muted = ChatRecord(id: 30_000, title: "old", creatorID: 1, date: 10, version: 2, defaultBannedRights: BannedRights.sendMessages.rawValue)
        try await storage.write { tx in try tx.upsert(muted) }
        #expect(try await storage.read { tx in try tx.chat(id: 30_000) } == muted)
    }
}
