import Foundation
import GRDB

extension Transaction {
    /// Appends an operation for `peer` under `tag`: next tag-local index for the peer, next merged index for the tag.
    /// Both counters are stored, so an index is never handed out twice, even after its entry was removed.
    @discardableResult
    public func appendOperation(peer: PeerID, tag: Int32, contents: [UInt8]) throws -> OperationLogEntry {
        let local = try Int32.fetchOne(db.cachedStatement(sql: """
            INSERT INTO operation_log_next_local (peer, tag, next) VALUES (?, ?, 1)
            ON CONFLICT(peer, tag) DO UPDATE SET next = next + 1 RETURNING next
            """), arguments: [peer.rawValue, tag]) ?? 1
        let merged = try Int64.fetchOne(db.cachedStatement(sql: """
            INSERT INTO operation_log_next_merged (tag, next) VALUES (?, 1)
            ON CONFLICT(tag) DO UPDATE SET next = next + 1 RETURNING next
            """), arguments: [tag]) ?? 1
        try db.cachedStatement(sql: "INSERT INTO operation_log (peer, tag, local_index, merged_index, contents) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [peer.rawValue, tag, local, merged, Data(contents)])
        let entry = OperationLogEntry(peer: peer, tag: tag, localIndex: local, mergedIndex: merged, contents: contents)
        changes.operationLog[tag, default: []].append(.append(entry))
        return entry
    }

    /// Removes a completed operation; returns false if it was not there.
    @discardableResult
    public func removeOperation(peer: PeerID, tag: Int32, localIndex: Int32) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM operation_log WHERE peer = ? AND tag = ? AND local_index = ?")
            .execute(arguments: [peer.rawValue, tag, localIndex])
        guard db.changesCount > 0 else { return false }
        changes.operationLog[tag, default: []].append(.remove(peer: peer, localIndex: localIndex))
        return true
    }

    /// Operations under `tag` in merged order (the order outbox workers process them in).
    public func operations(tag: Int32, limit: Int = .max) throws -> [OperationLogEntry] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM operation_log WHERE tag = ? ORDER BY merged_index LIMIT ?"),
                         arguments: [tag, min(limit, Int(Int32.max))]).map { row in
            let contents: Data = row["contents"]
            return OperationLogEntry(peer: PeerID(rawValue: row["peer"]), tag: row["tag"], localIndex: row["local_index"],
                                     mergedIndex: row["merged_index"], contents: [UInt8](contents))
        }
    }
}
