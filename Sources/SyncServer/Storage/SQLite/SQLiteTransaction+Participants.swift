import GRDB

/// Channel members by filter, and bans.
extension SQLiteTransaction {
    static let qualifiedMemberColumns = ChannelMemberColumn.list.split(separator: ",").map { "m." + $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: ", ")
    static let banColumns = ChannelBanColumn.list

    func members(channel: Int64, filter: MemberFilter, offset: Int, limit: Int) throws -> [ChannelMember] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.qualifiedMemberColumns) FROM channel_members m JOIN users u ON u.id = m.user_id
            WHERE m.channel_id = :channel AND \(MemberFilterSQL.condition(filter).replacingOccurrences(of: "LIKE :pattern", with: "LIKE :pattern ESCAPE '\\'"))
            ORDER BY m.date DESC, m.user_id LIMIT :limit OFFSET :offset
            """), arguments: ["channel": channel, "pattern": MemberFilterSQL.pattern(filter), "limit": limit, "offset": offset])
            .map { try $0.record(ChannelMember.self) }
    }

    func memberCount(channel: Int64, filter: MemberFilter) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM channel_members m JOIN users u ON u.id = m.user_id
            WHERE m.channel_id = :channel AND \(MemberFilterSQL.condition(filter).replacingOccurrences(of: "LIKE :pattern", with: "LIKE :pattern ESCAPE '\\'"))
            """), arguments: ["channel": channel, "pattern": MemberFilterSQL.pattern(filter)]) ?? 0
    }

    func ban(channel: Int64, user: Int64) throws -> ChannelBan? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.banColumns) FROM channel_bans WHERE channel_id = ? AND user_id = ?"),
                         arguments: [channel, user]).map { try $0.record(ChannelBan.self) }
    }

    func bans(channel: Int64, offset: Int, limit: Int) throws -> [ChannelBan] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.banColumns) FROM channel_bans WHERE channel_id = ? ORDER BY date DESC, user_id LIMIT ? OFFSET ?
            """), arguments: [channel, limit, offset]).map { try $0.record(ChannelBan.self) }
    }

    func banCount(channel: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM channel_bans WHERE channel_id = ?"), arguments: [channel]) ?? 0
    }

    func insert(_ ban: ChannelBan) throws {
        try RawStatement(db, sql: "INSERT OR REPLACE INTO channel_bans (\(Self.banColumns)) VALUES (\(ChannelBanColumn.sqliteParameters))")
            .execute { ban.encode(to: &$0) }
    }

    func deleteBan(channel: Int64, user: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM channel_bans WHERE channel_id = ? AND user_id = ?").execute(arguments: [channel, user])
    }
}
