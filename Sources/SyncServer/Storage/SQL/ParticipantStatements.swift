/// Channel members by filter, and bans, written once for both backends (`SQLText`). One statement per filter: a
/// search binds its pattern once per name it matches.
enum ParticipantSQL {
    static let memberColumns = ChannelMemberColumn.list.components(separatedBy: ", ").map { "m." + $0 }.joined(separator: ", ")
    static let banColumns = ChannelBanColumn.list

    /// Over `channel_members m` joined with `users u`.
    static func condition(_ filter: MemberFilter) -> String {
        switch filter {
        case .recent: "TRUE"
        case .admins: "m.role <> 0"
        // The first term is the partial index's condition, written out so that SQLite uses the index.
        case .restricted: "(m.role <> 0 OR m.banned_rights <> 0) AND m.role = 0"
        case .bots: "u.bot"
        case .search:
            "(lower(u.first_name) LIKE ? ESCAPE '\\' OR lower(u.last_name) LIKE ? ESCAPE '\\' OR lower(u.username) LIKE ? ESCAPE '\\')"
        }
    }

    static func members(_ filter: MemberFilter) -> String {
        """
        SELECT \(memberColumns) FROM channel_members m JOIN users u ON u.id = m.user_id
        WHERE m.channel_id = ? AND \(condition(filter)) ORDER BY m.date DESC, m.user_id LIMIT ? OFFSET ?
        """
    }

    static func memberCount(_ filter: MemberFilter) -> String {
        "SELECT COUNT(*) FROM channel_members m JOIN users u ON u.id = m.user_id WHERE m.channel_id = ? AND \(condition(filter))"
    }

    enum RecentMembers: SQLText { static let text = members(.recent) }
    enum AdminMembers: SQLText { static let text = members(.admins) }
    enum BotMembers: SQLText { static let text = members(.bots) }
    enum RestrictedMembers: SQLText { static let text = members(.restricted) }
    enum FoundMembers: SQLText { static let text = members(.search("")) }
    enum RecentMemberCount: SQLText { static let text = memberCount(.recent) }
    enum AdminMemberCount: SQLText { static let text = memberCount(.admins) }
    enum BotMemberCount: SQLText { static let text = memberCount(.bots) }
    enum RestrictedMemberCount: SQLText { static let text = memberCount(.restricted) }
    enum FoundMemberCount: SQLText { static let text = memberCount(.search("")) }

    enum Ban: SQLText { static let text = "SELECT \(banColumns) FROM channel_bans WHERE channel_id = ? AND user_id = ?" }
    enum Bans: SQLText {
        static let text = "SELECT \(banColumns) FROM channel_bans WHERE channel_id = ? ORDER BY date DESC, user_id LIMIT ? OFFSET ?"
    }
    enum BanCount: SQLText { static let text = "SELECT COUNT(*) FROM channel_bans WHERE channel_id = ?" }
    enum UpsertBan: SQLText { static let text = ChannelBanColumn.upsert(into: "channel_bans", key: [.channelID, .userID]) }
    enum DeleteBan: SQLText { static let text = "DELETE FROM channel_bans WHERE channel_id = ? AND user_id = ?" }
}

extension SQLStatements {
    func members(channel: Int64, filter: MemberFilter, offset: Int, limit: Int) throws -> [ChannelMember] {
        let read = { (cells: Cells) throws -> ChannelMember in try cells.record(ChannelMember.self) }
        switch filter {
        case .recent: return try rows(ParticipantSQL.RecentMembers.self, channel, limit, offset, read: read)
        case .admins: return try rows(ParticipantSQL.AdminMembers.self, channel, limit, offset, read: read)
        case .bots: return try rows(ParticipantSQL.BotMembers.self, channel, limit, offset, read: read)
        case .restricted: return try rows(ParticipantSQL.RestrictedMembers.self, channel, limit, offset, read: read)
        case let .search(text):
            let pattern = UsernamePrefix.likePattern(text)
            return try rows(ParticipantSQL.FoundMembers.self, channel, pattern, pattern, pattern, limit, offset, read: read)
        }
    }

    func memberCount(channel: Int64, filter: MemberFilter) throws -> Int {
        let count = switch filter {
        case .recent: try integer(ParticipantSQL.RecentMemberCount.self, channel)
        case .admins: try integer(ParticipantSQL.AdminMemberCount.self, channel)
        case .bots: try integer(ParticipantSQL.BotMemberCount.self, channel)
        case .restricted: try integer(ParticipantSQL.RestrictedMemberCount.self, channel)
        case let .search(text):
            try integer(ParticipantSQL.FoundMemberCount.self, channel, UsernamePrefix.likePattern(text), UsernamePrefix.likePattern(text),
                        UsernamePrefix.likePattern(text))
        }
        return Int(count)
    }

    func ban(channel: Int64, user: Int64) throws -> ChannelBan? {
        try row(ParticipantSQL.Ban.self, channel, user) { try $0.record(ChannelBan.self) }
    }

    func bans(channel: Int64, offset: Int, limit: Int) throws -> [ChannelBan] {
        try rows(ParticipantSQL.Bans.self, channel, limit, offset) { try $0.record(ChannelBan.self) }
    }

    func banCount(channel: Int64) throws -> Int { Int(try integer(ParticipantSQL.BanCount.self, channel)) }

    func insert(_ ban: ChannelBan) throws { try execute(ParticipantSQL.UpsertBan.self, RecordParameters(ban)) }

    func deleteBan(channel: Int64, user: Int64) throws { try execute(ParticipantSQL.DeleteBan.self, channel, user) }
}
