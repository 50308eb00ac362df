import Foundation
import GRDB

/// Basic groups in the SQLite backend.
extension SQLiteTransaction {
    func chat(id: Int64) throws -> ChatRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(ChatColumn.list) FROM chats WHERE id = ?"), arguments: [id])
            .map { try $0.record(ChatRecord.self) }
    }

    func maxChatID() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM chats") ?? 0
    }

    func chatMembers(chat: Int64) throws -> [ChatMember] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(ChatMemberColumn.list) FROM chat_members WHERE chat_id = ? ORDER BY date, user_id
            """), arguments: [chat]).map { try $0.record(ChatMember.self) }
    }

    /// Served by the partial index `chat_messages_by_link` (basic-group rows only, so private sends do not pay for it);
    /// the literal `peer_type = 1` lets SQLite prove the index applies.
    func linkedCopy(owner: Int64, peer: PeerRef, from: Int64, link: Int32) throws -> StoredMessage? {
        guard case let .chat(chat) = peer else { return nil }
        return try Row.fetchOne(db.cachedStatement(sql: """
            SELECT \(Self.messageColumns) FROM messages INDEXED BY chat_messages_by_link
            WHERE owner = ? AND peer_type = 1 AND peer_id = ? AND counterpart_id = ? AND from_id = ?
            """), arguments: [owner, chat, link, from]).map { try $0.record(StoredMessage.self) }
    }

    func upsert(_ chat: ChatRecord) throws {
        try RawStatement(db, sql: "INSERT OR REPLACE INTO chats (\(ChatColumn.list)) VALUES (\(ChatColumn.sqliteParameters))")
            .execute { chat.encode(to: &$0) }
    }

    func upsert(_ member: ChatMember) throws {
        try RawStatement(db, sql: "INSERT OR REPLACE INTO chat_members (\(ChatMemberColumn.list)) VALUES (\(ChatMemberColumn.sqliteParameters))")
            .execute { member.encode(to: &$0) }
    }

    func removeChatMember(chat: Int64, user: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM chat_members WHERE chat_id = ? AND user_id = ?").execute(arguments: [chat, user])
    }
}
