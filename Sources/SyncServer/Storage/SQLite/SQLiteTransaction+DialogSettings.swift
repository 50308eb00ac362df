import Foundation
import GRDB

/// Pinned dialogs.
extension SQLiteTransaction {
    func pinnedDialogs(owner: Int64) throws -> [PeerRef] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT peer_type, peer_id FROM pinned_dialogs WHERE owner = ? ORDER BY position"),
                         arguments: [owner]).compactMap { row in PeerRef(typeCode: row[0], id: row[1]) }
    }

    func setPinnedDialogs(owner: Int64, _ peers: [PeerRef]) throws {
        try db.cachedStatement(sql: "DELETE FROM pinned_dialogs WHERE owner = ?").execute(arguments: [owner])
        for (position, peer) in peers.enumerated() {
            try db.cachedStatement(sql: "INSERT INTO pinned_dialogs (owner, position, peer_type, peer_id) VALUES (?, ?, ?, ?)")
                .execute(arguments: [owner, position, peer.typeCode, peer.id])
        }
    }
}

/// Settings per chat.
extension SQLiteTransaction {
    func peerSetting(_ kind: PeerSettingKind, owner: Int64, scope: SettingScope) throws -> [UInt8]? {
        try Data.fetchOne(db.cachedStatement(sql: """
            SELECT value FROM peer_settings WHERE owner = ? AND kind = ? AND scope_type = ? AND scope_id = ?
            """), arguments: [owner, kind.rawValue, scope.typeCode, scope.id]).map { [UInt8]($0) }
    }

    func peerSettings(_ kind: PeerSettingKind, owner: Int64, limit: Int) throws -> [(scope: SettingScope, value: [UInt8])] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT scope_type, scope_id, value FROM peer_settings WHERE owner = ? AND kind = ? ORDER BY date DESC LIMIT ?
            """), arguments: [owner, kind.rawValue, limit]).compactMap { row in
                let value: Data = row[2]
                return SettingScope(typeCode: row[0], id: row[1]).map { ($0, [UInt8](value)) }
            }
    }

    func setPeerSetting(_ kind: PeerSettingKind, owner: Int64, scope: SettingScope, value: [UInt8]?, date: Int32) throws {
        if let value {
            try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO peer_settings (owner, kind, scope_type, scope_id, value, date) VALUES (?, ?, ?, ?, ?, ?)
                """).execute(arguments: [owner, kind.rawValue, scope.typeCode, scope.id, Data(value), date])
        } else {
            try db.cachedStatement(sql: "DELETE FROM peer_settings WHERE owner = ? AND kind = ? AND scope_type = ? AND scope_id = ?")
                .execute(arguments: [owner, kind.rawValue, scope.typeCode, scope.id])
        }
    }
}
