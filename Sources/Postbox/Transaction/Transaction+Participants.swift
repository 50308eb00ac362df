import GRDB

/// A group's or channel's members as the account last read or was told them: what a member list shows. Kept per chat
/// as typed rows; a chat nobody asked about has none.
extension Transaction {
    /// Replaces `chat`'s whole member list (a full read from the server).
    public func replaceParticipants(of chat: PeerID, _ participants: [Participant]) throws {
        try db.cachedStatement(sql: "DELETE FROM participants WHERE chat = ?").execute(arguments: [chat.rawValue])
        for participant in participants { try setParticipant(participant, in: chat) }
        changes.participants.insert(chat)
    }

    /// Adds a member, or replaces its row (a new role).
    public func setParticipant(_ participant: Participant, in chat: PeerID) throws {
        try db.cachedStatement(sql: """
            INSERT INTO participants (chat, peer, role, inviter, date) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(chat, peer) DO UPDATE SET role = excluded.role, inviter = excluded.inviter, date = excluded.date
            """).execute(arguments: [chat.rawValue, participant.peer.rawValue, participant.role.rawValue, participant.inviter?.rawValue,
                                     participant.date])
        changes.participants.insert(chat)
    }

    /// Removes a member (nothing when it is not one).
    public func removeParticipant(_ peer: PeerID, from chat: PeerID) throws {
        try db.cachedStatement(sql: "DELETE FROM participants WHERE chat = ? AND peer = ?").execute(arguments: [chat.rawValue, peer.rawValue])
        changes.participants.insert(chat)
    }

    /// `chat`'s members: the creator, then admins, then members, each by the date they joined.
    public func participants(of chat: PeerID) throws -> [Participant] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT peer, role, inviter, date FROM participants WHERE chat = ? ORDER BY role DESC, date, peer"),
                         arguments: [chat.rawValue]).map { row in
            let inviter: Int64? = row["inviter"]
            return Participant(peer: PeerID(rawValue: row["peer"]), role: Participant.Role(rawValue: row["role"]) ?? .member,
                               inviter: inviter.map(PeerID.init(rawValue:)), date: row["date"])
        }
    }
}
