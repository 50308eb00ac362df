import PostgresNIO

/// Channel members by filter, and bans. One statement per filter (prepared statements are static texts); each names the
/// search pattern, used or not, so that every parameter has a type.
extension PostgresTransaction {
    static let qualifiedMemberColumns = ChannelMemberColumn.list.split(separator: ",").map { "m." + $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: ", ")
    static let banColumns = ChannelBanColumn.list

    static func membersSQL(_ filter: MemberFilter) -> String {
        """
        SELECT \(qualifiedMemberColumns) FROM channel_members m JOIN users u ON u.id = m.user_id
        WHERE m.channel_id = $1 AND \(MemberFilterSQL.condition(filter).replacingOccurrences(of: ":pattern", with: "$2")) AND $2 IS NOT NULL
        ORDER BY m.date DESC, m.user_id LIMIT $3 OFFSET $4
        """
    }

    static func memberCountSQL(_ filter: MemberFilter) -> String {
        """
        SELECT COUNT(*) FROM channel_members m JOIN users u ON u.id = m.user_id
        WHERE m.channel_id = $1 AND \(MemberFilterSQL.condition(filter).replacingOccurrences(of: ":pattern", with: "$2")) AND $2 IS NOT NULL
        """
    }

    enum RecentMembers: PostgresSQL { static let sql = membersSQL(.recent) }
    enum AdminMembers: PostgresSQL { static let sql = membersSQL(.admins) }
    enum BotMembers: PostgresSQL { static let sql = membersSQL(.bots) }
    enum RestrictedMembers: PostgresSQL { static let sql = membersSQL(.restricted) }
    enum FoundMembers: PostgresSQL { static let sql = membersSQL(.search("")) }
    enum RecentMemberCount: PostgresSQL { static let sql = memberCountSQL(.recent) }
    enum AdminMemberCount: PostgresSQL { static let sql = memberCountSQL(.admins) }
    enum BotMemberCount: PostgresSQL { static let sql = memberCountSQL(.bots) }
    enum RestrictedMemberCount: PostgresSQL { static let sql = memberCountSQL(.restricted) }
    enum FoundMemberCount: PostgresSQL { static let sql = memberCountSQL(.search("")) }
    enum BanOfUser: PostgresSQL { static let sql = "SELECT \(banColumns) FROM channel_bans WHERE channel_id = $1 AND user_id = $2" }
    enum BansOfChannel: PostgresSQL {
        static let sql = "SELECT \(banColumns) FROM channel_bans WHERE channel_id = $1 ORDER BY date DESC, user_id LIMIT $2 OFFSET $3"
    }
    enum BanCount: PostgresSQL { static let sql = "SELECT COUNT(*) FROM channel_bans WHERE channel_id = $1" }
    enum InsertBan: PostgresSQL {
        static let sql = """
            INSERT INTO channel_bans (\(banColumns)) VALUES (\(ChannelBanColumn.postgresParameters()))
            ON CONFLICT (channel_id, user_id) DO UPDATE SET kicked_by = excluded.kicked_by, date = excluded.date
            """
    }
    enum DeleteBan: PostgresSQL { static let sql = "DELETE FROM channel_bans WHERE channel_id = $1 AND user_id = $2" }

    func members(channel: Int64, filter: MemberFilter, offset: Int, limit: Int) throws -> [ChannelMember] {
        let (pattern, limit, offset) = (MemberFilterSQL.pattern(filter), Int64(limit), Int64(offset))
        let rows = switch filter {
        case .recent: try query(RecentMembers.self, channel, pattern, limit, offset)
        case .admins: try query(AdminMembers.self, channel, pattern, limit, offset)
        case .bots: try query(BotMembers.self, channel, pattern, limit, offset)
        case .restricted: try query(RestrictedMembers.self, channel, pattern, limit, offset)
        case .search: try query(FoundMembers.self, channel, pattern, limit, offset)
        }
        return try rows.map { try $0.record(ChannelMember.self) }
    }

    func memberCount(channel: Int64, filter: MemberFilter) throws -> Int {
        let pattern = MemberFilterSQL.pattern(filter)
        let rows = switch filter {
        case .recent: try query(RecentMemberCount.self, channel, pattern)
        case .admins: try query(AdminMemberCount.self, channel, pattern)
        case .bots: try query(BotMemberCount.self, channel, pattern)
        case .restricted: try query(RestrictedMemberCount.self, channel, pattern)
        case .search: try query(FoundMemberCount.self, channel, pattern)
        }
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }

    func ban(channel: Int64, user: Int64) throws -> ChannelBan? {
        try query(BanOfUser.self, channel, user).first.map { try $0.record(ChannelBan.self) }
    }

    func bans(channel: Int64, offset: Int, limit: Int) throws -> [ChannelBan] {
        try query(BansOfChannel.self, channel, Int64(limit), Int64(offset)).map { try $0.record(ChannelBan.self) }
    }

    func banCount(channel: Int64) throws -> Int {
        Int(try query(BanCount.self, channel).first?.decode(Int64.self) ?? 0)
    }

    func insert(_ ban: ChannelBan) throws {
        try change(InsertBan.self, RecordParameters(ban))
    }

    func deleteBan(channel: Int64, user: Int64) throws {
        try change(DeleteBan.self, channel, user)
    }
}
