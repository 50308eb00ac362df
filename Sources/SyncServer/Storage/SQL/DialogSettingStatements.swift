/// Pinned dialogs and settings per chat, written once for both backends (`SQLText`).
enum DialogSettingSQL {
    enum PinnedDialogs: SQLText { static let text = "SELECT peer_type, peer_id FROM pinned_dialogs WHERE owner = ? ORDER BY position" }
    enum DeletePinnedDialogs: SQLText { static let text = "DELETE FROM pinned_dialogs WHERE owner = ?" }
    enum InsertPinnedDialog: SQLText {
        static let text = "INSERT INTO pinned_dialogs (owner, position, peer_type, peer_id) VALUES (?, ?, ?, ?)"
    }

    enum PeerSetting: SQLText {
        static let text = "SELECT value FROM peer_settings WHERE owner = ? AND kind = ? AND scope_type = ? AND scope_id = ?"
    }
    enum PeerSettings: SQLText {
        static let text = "SELECT scope_type, scope_id, value FROM peer_settings WHERE owner = ? AND kind = ? ORDER BY date DESC LIMIT ?"
    }
    enum UpsertPeerSetting: SQLText {
        static let text = """
            INSERT INTO peer_settings (owner, kind, scope_type, scope_id, value, date) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (owner, kind, scope_type, scope_id) DO UPDATE SET value = excluded.value, date = excluded.date
            """
    }
    enum DeletePeerSetting: SQLText {
        static let text = "DELETE FROM peer_settings WHERE owner = ? AND kind = ? AND scope_type = ? AND scope_id = ?"
    }
}

extension SQLStatements {
    func pinnedDialogs(owner: Int64) throws -> [PeerRef] {
        try rows(DialogSettingSQL.PinnedDialogs.self, owner) { cells in
            PeerRef(typeCode: Int(try cells.int64(at: 0)), id: try cells.int64(at: 1))
        }.compactMap { $0 }
    }

    func setPinnedDialogs(owner: Int64, _ peers: [PeerRef]) throws {
        try execute(DialogSettingSQL.DeletePinnedDialogs.self, owner)
        for (position, peer) in peers.enumerated() {
            try execute(DialogSettingSQL.InsertPinnedDialog.self, owner, Int32(position), Code(peer.typeCode), peer.id)
        }
    }

    func peerSetting(_ kind: PeerSettingKind, owner: Int64, scope: SettingScope) throws -> [UInt8]? {
        try row(DialogSettingSQL.PeerSetting.self, owner, Code(Int(kind.rawValue)), Code(scope.typeCode), scope.id) { try $0.bytes(at: 0) }
    }

    func peerSettings(_ kind: PeerSettingKind, owner: Int64, limit: Int) throws -> [(scope: SettingScope, value: [UInt8])] {
        try rows(DialogSettingSQL.PeerSettings.self, owner, Code(Int(kind.rawValue)), limit) { cells -> (scope: SettingScope, value: [UInt8])? in
            guard let scope = SettingScope(typeCode: Int(try cells.int64(at: 0)), id: try cells.int64(at: 1)) else { return nil }
            return (scope, try cells.bytes(at: 2))
        }.compactMap { $0 }
    }

    func setPeerSetting(_ kind: PeerSettingKind, owner: Int64, scope: SettingScope, value: [UInt8]?, date: Int32) throws {
        let (kind, type) = (Code(Int(kind.rawValue)), Code(scope.typeCode))
        if let value {
            try execute(DialogSettingSQL.UpsertPeerSetting.self, owner, kind, type, scope.id, Bytes(value), date)
        } else {
            try execute(DialogSettingSQL.DeletePeerSetting.self, owner, kind, type, scope.id)
        }
    }
}
