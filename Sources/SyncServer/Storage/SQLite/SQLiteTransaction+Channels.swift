import Foundation
import GRDB

/// The channel half of the SQLite transaction.
extension SQLiteTransaction {
    func channel(id: Int64) throws -> ChannelRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.channelColumns) FROM channels WHERE id = ?"), arguments: [id]).map { try $0.record(ChannelRecord.self) }
    }

    func channel(username: String) throws -> ChannelRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.channelColumns) FROM channels WHERE username = ?"), arguments: [username])
            .map { try $0.record(ChannelRecord.self) }
    }

    func maxChannelID() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM channels") ?? 0
    }

    func upsert(_ channel: ChannelRecord) throws {
        try RawStatement(db, sql: "INSERT OR REPLACE INTO channels (\(Self.channelColumns)) VALUES (\(ChannelColumn.sqliteParameters))")
            .execute { channel.encode(to: &$0) }
    }

    static let channelColumns = ChannelColumn.list

    func channelSenders(channel: Int64, above: Int32, upTo: Int32) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT DISTINCT from_id FROM channel_messages WHERE channel_id = ? AND id > ? AND id <= ?
            """), arguments: [channel, above, upTo])
    }

    // MARK: members

    func member(channel: Int64, user: Int64) throws -> ChannelMember? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.memberColumns) FROM channel_members WHERE channel_id = ? AND user_id = ?"),
                         arguments: [channel, user]).map { try $0.record(ChannelMember.self) }
    }

    func memberships(user: Int64) throws -> [ChannelMember] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.memberColumns) FROM channel_members WHERE user_id = ? ORDER BY channel_id"),
                         arguments: [user]).map { try $0.record(ChannelMember.self) }
    }

    func memberIDs(channel: Int64) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: "SELECT user_id FROM channel_members WHERE channel_id = ?"), arguments: [channel])
    }

    func memberCount(channel: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM channel_members WHERE channel_id = ?"),
                         arguments: [channel]) ?? 0
    }

    func upsert(_ member: ChannelMember) throws {
        try RawStatement(db, sql: "INSERT OR REPLACE INTO channel_members (\(Self.memberColumns)) VALUES (\(ChannelMemberColumn.sqliteParameters))")
            .execute { member.encode(to: &$0) }
    }

    func removeMember(channel: Int64, user: Int64) throws {
        try db.execute(sql: "DELETE FROM channel_members WHERE channel_id = ? AND user_id = ?", arguments: [channel, user])
    }

    static let memberColumns = ChannelMemberColumn.list

    // MARK: update log

    func channelEvents(channel: Int64, afterPts: Int32, limit: Int) throws -> [StoredEvent] {
        try Self.events(RawStatement(db, sql: """
            SELECT \(EventColumn.list) FROM channel_events WHERE channel_id = ? AND pts > ? ORDER BY pts LIMIT ?
            """), box: channel, afterPts: afterPts, limit: limit)
    }

    func appendChannelEvent(_ event: StoredEvent, channel: Int64) throws {
        try RawStatement(db, sql: "INSERT INTO channel_events (channel_id, \(EventColumn.list)) VALUES (?, \(EventColumn.sqliteParameters))")
            .execute { row in
                row.add(channel)
                event.encode(to: &row)
            }
    }

    // MARK: messages

    func channelMessage(channel: Int64, id: Int32) throws -> ChannelMessage? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.channelMessageColumns) FROM channel_messages WHERE channel_id = ? AND id = ?"),
                         arguments: [channel, id]).map { try $0.record(ChannelMessage.self) }
    }

    func channelMessages(channel: Int64, in range: IDRange) throws -> [ChannelMessage] {
        let order = range.newestFirst ? "DESC" : "ASC"
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.channelMessageColumns) FROM channel_messages WHERE channel_id = ? AND id > ? AND id < ? ORDER BY id \(order) LIMIT ? OFFSET ?
            """), arguments: [channel, range.above, range.below, range.limit, range.skip]).map { try $0.record(ChannelMessage.self) }
    }

    func channelMessageID(channel: Int64, in range: IDRange) throws -> Int32? {
        let order = range.newestFirst ? "DESC" : "ASC"
        return try Int32.fetchOne(db.cachedStatement(sql: """
            SELECT id FROM channel_messages INDEXED BY channel_message_ids WHERE channel_id = ? AND id > ? AND id < ?
            ORDER BY id \(order) LIMIT 1 OFFSET ?
            """), arguments: [channel, range.above, range.below, range.skip])
    }

    func channelMessageCount(channel: Int64, upTo limit: Int) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM (SELECT 1 FROM channel_messages INDEXED BY channel_message_ids WHERE channel_id = ? LIMIT ?)
            """), arguments: [channel, limit]) ?? 0
    }

    func lastChannelMessageID(channel: Int64, atOrBefore date: Int32) throws -> Int32? {
        try Int32.fetchOne(db.cachedStatement(sql: "SELECT MAX(id) FROM channel_messages WHERE channel_id = ? AND date <= ?"),
                           arguments: [channel, date])
    }

    func channelUnreadCount(channel: Int64, above id: Int32, viewer: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM channel_messages WHERE channel_id = ? AND id > ? AND from_id != ?
            """), arguments: [channel, id, viewer]) ?? 0
    }

    func upsert(_ message: ChannelMessage) throws {
        try RawStatement(db, sql: """
            INSERT OR REPLACE INTO channel_messages (\(Self.channelMessageColumns)) VALUES (\(ChannelMessageColumn.sqliteParameters))
            """).execute { message.encode(to: &$0) }
    }

    func deleteChannelMessage(channel: Int64, id: Int32) throws {
        try db.execute(sql: "DELETE FROM channel_messages WHERE channel_id = ? AND id = ?", arguments: [channel, id])
    }

    static let channelMessageColumns = ChannelMessageColumn.list

}
