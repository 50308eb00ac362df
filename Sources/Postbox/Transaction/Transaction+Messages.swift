import Foundation
import GRDB

extension Transaction {
    /// Inserts messages, or replaces those whose id exists. New incoming messages in the chat-list namespace above
    /// the read mark raise the unread count, and the chat list's top message follows the newest message.
    ///
    /// `countsUnread: false` is for messages that were already counted where the read state came from: older history
    /// fetched into a hole is part of the unread count the server gave with the chat, so storing it must not raise
    /// the count again (unread counts move only by what the server says and by reads).
    ///
    /// Works peer by peer so the per-peer state (initialization, read state, top message, change list) is looked up
    /// and stored once per peer and batch rather than once per message: in `bench postbox` the hashing of those
    /// lookups cost more than SQLite's insert.
    public func addMessages(_ messages: [Message], countsUnread: Bool = true) throws {
        let insertNew = try MessageInsertStatement(db)
        for (peer, peerMessages) in Self.groupedByPeer(messages) {
            try initializePeerIfNeeded(peer)
            var peerChanges: [ChangeRecord.MessageOperation] = []
            peerChanges.reserveCapacity(peerMessages.count)
            var newUnread: Int32 = 0
            var newestInChatList: MessageIndex?
            var readState: ReadState?
            for message in peerMessages {
                let isNew = try insertNew.execute(message)
                if !isNew { try replaceExisting(message) }
                try insertTagRows(message)
                peerChanges.append(isNew ? .insert(message) : .update(message))
                guard isNew, message.id.namespace == seed.chatListNamespace else { continue }
                if countsUnread, message.flags.contains(.incoming) {
                    let state = try readState ?? self.readState(peer, namespace: message.id.namespace)
                    readState = state
                    if message.id.id > state.maxIncomingReadID { newUnread += 1 }
                }
                if newestInChatList.map({ $0 < message.index }) ?? true { newestInChatList = message.index }
            }
            changes.messages[peer, default: []].append(contentsOf: peerChanges)
            if newUnread > 0, var state = readState {
                state.unreadCount += newUnread
                try storeReadState(peer, namespace: seed.chatListNamespace, state)
            }
            if let newestInChatList { try raiseTopMessage(newestInChatList) }
        }
    }

    /// Messages grouped by peer, each group in its original order (the order of replacements of one id matters;
    /// the order between peers does not: change records are per peer).
    private static func groupedByPeer(_ messages: [Message]) -> [(PeerID, [Message])] {
        guard let first = messages.first?.id.peer else { return [] }
        if messages.allSatisfy({ $0.id.peer == first }) { return [(first, messages)] }
        var order: [PeerID] = []
        var groups: [PeerID: [Message]] = [:]
        for message in messages {
            if groups[message.id.peer] == nil { order.append(message.id.peer) }
            groups[message.id.peer, default: []].append(message)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }

    /// Replaces the stored row of an existing id (its tag rows follow the new tags).
    private func replaceExisting(_ message: Message) throws {
        if let existing = try self.message(message.id) { try removeTagRows(existing) }
        let headers = MessageHeaderColumns.names.map { "\($0) = ?" }.joined(separator: ", ")
        try db.cachedStatement(sql: """
            UPDATE messages SET timestamp = ?, flags = ?, tags = ?, author = ?, text = ?, attributes = ?, \(headers)
            WHERE peer = ? AND namespace = ? AND id = ?
            """).execute(arguments: StatementArguments([
                message.timestamp, message.flags.rawValue, message.tags.rawValue, message.author?.rawValue, Data(message.text.utf8),
                Data(message.attributes),
            ] + MessageHeaderColumns(message).values + [message.id.peer.rawValue, message.id.namespace, message.id.id]))
    }

    /// Removes messages (missing ids are ignored), keeping unread counts and the chat list's top message right.
    public func removeMessages(_ ids: [MessageID]) throws {
        for id in ids {
            guard let message = try message(id) else { continue }
            try db.cachedStatement(sql: "DELETE FROM messages WHERE peer = ? AND namespace = ? AND id = ?")
                .execute(arguments: [id.peer.rawValue, id.namespace, id.id])
            try removeTagRows(message)
            changes.messages[id.peer, default: []].append(.remove(id))
            guard id.namespace == seed.chatListNamespace else { continue }
            if message.flags.contains(.incoming) {
                var state = try readState(id.peer, namespace: id.namespace)
                if id.id > state.maxIncomingReadID, state.unreadCount > 0 {
                    state.unreadCount -= 1
                    try storeReadState(id.peer, namespace: id.namespace, state)
                }
            }
            if try chatListEntry(id.peer)?.topMessage?.id == id { try recomputeTopMessage(id.peer) }
        }
    }

    /// Removes every message of (peer, namespace), as `removeMessages` does: what a history reset does before the
    /// history, marked a hole, is fetched again.
    public func clearHistory(_ peer: PeerID, namespace: Int32) throws {
        let ids = try Int32.fetchAll(db.cachedStatement(sql: "SELECT id FROM messages WHERE peer = ? AND namespace = ?"),
                                     arguments: [peer.rawValue, namespace])
        try removeMessages(ids.map { MessageID(peer: peer, namespace: namespace, id: $0) })
    }

    /// Changes a stored message in place; returns false if it does not exist. The id cannot change.
    @discardableResult
    public func updateMessage(_ id: MessageID, _ transform: (inout Message) -> Void) throws -> Bool {
        guard var message = try message(id) else { return false }
        transform(&message)
        message.id = id
        try addMessages([message])
        return true
    }

    /// The stored message with `id`, nil when there is none.
    public func message(_ id: MessageID) throws -> Message? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM messages WHERE peer = ? AND namespace = ? AND id = ?"),
                         arguments: [id.peer.rawValue, id.namespace, id.id]).map(Self.message(from:))
    }

    /// Up to `limit` messages of (peer, namespace) strictly older (`.older`) or newer (`.newer`) than `index`,
    /// nearest first; with `tag`, only messages carrying it.
    public func messages(peer: PeerID, namespace: Int32, from index: MessageIndex, direction: HistoryDirection,
                         limit: Int, tag: MessageTags? = nil) throws -> [Message] {
        let comparison = direction == .older ? "<" : ">"
        let order = direction == .older ? "DESC" : "ASC"
        if let tag {
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT m.* FROM message_tags t JOIN messages m ON m.peer = t.peer AND m.namespace = t.namespace AND m.id = t.id
                WHERE t.peer = ? AND t.tag = ? AND t.namespace = ? AND (t.timestamp, t.id) \(comparison) (?, ?)
                ORDER BY t.timestamp \(order), t.id \(order) LIMIT ?
                """), arguments: [peer.rawValue, tag.rawValue, namespace, index.timestamp, index.id.id, limit])
            return rows.map(Self.message(from:))
        }
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM messages WHERE peer = ? AND namespace = ? AND (timestamp, id) \(comparison) (?, ?)
            ORDER BY timestamp \(order), id \(order) LIMIT ?
            """), arguments: [peer.rawValue, namespace, index.timestamp, index.id.id, limit])
        return rows.map(Self.message(from:))
    }

    /// The newest `limit` stored messages of (peer, namespace), newest first.
    public func latestMessages(peer: PeerID, namespace: Int32, limit: Int) throws -> [Message] {
        try messages(peer: peer, namespace: namespace,
                     from: MessageIndex(id: MessageID(peer: peer, namespace: namespace, id: .max), timestamp: .max),
                     direction: .older, limit: limit)
    }

    /// Every stored message of (peer, namespace), oldest first.
    public func allMessages(peer: PeerID, namespace: Int32) throws -> [Message] {
        try messages(peer: peer, namespace: namespace, from: MessageIndex(id: MessageID(peer: peer, namespace: namespace, id: 0), timestamp: 0),
                     direction: .newer, limit: .max)
    }

    /// The stored messages of `namespace` with these ids in any peer of `peerNamespaces`: how an engine whose ids are
    /// unique across several peers (Telegram's common message box) finds what a delete names by id alone. Not indexed
    /// by id yet: it reads the namespace's rows, so keep the lists short.
    public func messageIDs(_ ids: [Int32], namespace: Int32, peerNamespaces: [Int32]) throws -> [MessageID] {
        guard !ids.isEmpty, !peerNamespaces.isEmpty else { return [] }
        let wanted = Set(ids), namespaces = Set(peerNamespaces)
        var found: [MessageID] = []
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT peer, id FROM messages WHERE namespace = ? AND id IN (\(marks))"),
                                        arguments: StatementArguments([namespace] + chunk.map { $0 as any DatabaseValueConvertible }))
            for row in rows {
                let peer = PeerID(rawValue: row["peer"])
                let id: Int32 = row["id"]
                if namespaces.contains(peer.namespace), wanted.contains(id) { found.append(MessageID(peer: peer, namespace: namespace, id: id)) }
            }
        }
        return found.sorted()
    }

    /// Messages flagged `.unsent`, in id order (served by a partial index, so it stays cheap with a large history).
    public func unsentMessageIDs() throws -> [MessageID] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT peer, namespace, id FROM messages WHERE (flags & 2) != 0 ORDER BY peer, namespace, id"))
            .map { MessageID(peer: PeerID(rawValue: $0["peer"]), namespace: $0["namespace"], id: $0["id"]) }
    }

    static func message(from row: Row) -> Message {
        let peer = PeerID(rawValue: row["peer"])
        let author: Int64? = row["author"]
        let attributes: Data = row["attributes"]
        // Stored as the BLOB of its UTF-8 bytes (see MessageInsertStatement); a TEXT value reads the same way.
        let text: Data = row["text"]
        let (reply, forward) = MessageHeaderColumns.headers(from: row)
        return Message(id: MessageID(peer: peer, namespace: row["namespace"], id: row["id"]), timestamp: row["timestamp"],
                       flags: MessageFlags(rawValue: row["flags"]), tags: MessageTags(rawValue: row["tags"]),
                       author: author.map(PeerID.init(rawValue:)), text: String(decoding: text, as: UTF8.self), attributes: [UInt8](attributes),
                       reply: reply, forward: forward)
    }

    private func insertTagRows(_ message: Message) throws {
        guard message.tags.rawValue != 0 else { return }
        for tag in message.tags.individual {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO message_tags (peer, tag, namespace, id, timestamp) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [message.id.peer.rawValue, tag.rawValue, message.id.namespace, message.id.id, message.timestamp])
        }
    }

    private func removeTagRows(_ message: Message) throws {
        guard message.tags.rawValue != 0 else { return }
        try db.cachedStatement(sql: "DELETE FROM message_tags WHERE peer = ? AND namespace = ? AND id = ? AND timestamp = ?")
            .execute(arguments: [message.id.peer.rawValue, message.id.namespace, message.id.id, message.timestamp])
    }

    /// The first time a peer is touched, each seed namespace (and tag space) becomes one hole over all ids.
    func initializePeerIfNeeded(_ peer: PeerID) throws {
        guard !initializedPeers.contains(peer) else { return }
        initializedPeers.insert(peer)
        let known = try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM initialized_peers WHERE peer = ?"),
                                      arguments: [peer.rawValue]) ?? false
        guard !known else { return }
        try db.cachedStatement(sql: "INSERT INTO initialized_peers (peer) VALUES (?)").execute(arguments: [peer.rawValue])
        for namespace in seed.holeNamespaces {
            try addHole(HoleKey(peer: peer, namespace: namespace, space: .everywhere), SeedConfiguration.allIDs)
            for tag in seed.holeTags {
                try addHole(HoleKey(peer: peer, namespace: namespace, space: .tag(tag)), SeedConfiguration.allIDs)
            }
        }
    }
}

/// Which side of an anchor a history read or hole lies on.
public enum HistoryDirection: Sendable {
    case older
    case newer
}
