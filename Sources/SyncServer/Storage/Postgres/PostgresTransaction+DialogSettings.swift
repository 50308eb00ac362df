import PostgresNIO

/// Pinned dialogs.
extension PostgresTransaction {
    enum PinnedDialogs: PostgresSQL {
        static let sql = "SELECT peer_type, peer_id FROM pinned_dialogs WHERE owner = $1 ORDER BY position"
    }
    enum DeletePinnedDialogs: PostgresSQL { static let sql = "DELETE FROM pinned_dialogs WHERE owner = $1" }
    enum InsertPinnedDialog: PostgresSQL {
        static let sql = "INSERT INTO pinned_dialogs (owner, position, peer_type, peer_id) VALUES ($1, $2, $3, $4)"
    }

    func pinnedDialogs(owner: Int64) throws -> [PeerRef] {
        try query(PinnedDialogs.self, owner).compactMap { row in
            let (type, id) = try row.decode((Int16, Int64).self)
            return PeerRef(typeCode: Int(type), id: id)
        }
    }

    func setPinnedDialogs(owner: Int64, _ peers: [PeerRef]) throws {
        try change(DeletePinnedDialogs.self, owner)
        for (position, peer) in peers.enumerated() {
            try change(InsertPinnedDialog.self, owner, Int32(position), Int16(peer.typeCode), peer.id)
        }
    }
}

/// Settings per chat.
extension PostgresTransaction {
    enum PeerSetting: PostgresSQL {
        static let sql = "SELECT value FROM peer_settings WHERE owner = $1 AND kind = $2 AND scope_type = $3 AND scope_id = $4"
    }
    enum PeerSettings: PostgresSQL {
        static let sql = "SELECT scope_type, scope_id, value FROM peer_settings WHERE owner = $1 AND kind = $2 ORDER BY date DESC LIMIT $3"
    }
    enum UpsertPeerSetting: PostgresSQL {
        static let sql = """
            INSERT INTO peer_settings (owner, kind, scope_type, scope_id, value, date) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (owner, kind, scope_type, scope_id) DO UPDATE SET value = excluded.value, date = excluded.date
            """
    }
    enum DeletePeerSetting: PostgresSQL {
        static let sql = "DELETE FROM peer_settings WHERE owner = $1 AND kind = $2 AND scope_type = $3 AND scope_id = $4"
    }

    func peerSetting(_ kind: PeerSettingKind, owner: Int64, scope: SettingScope) throws -> [UInt8]? {
        try query(PeerSetting.self, owner, Int16(kind.rawValue), Int16(scope.typeCode), scope.id).first
            .map { try PostgresRecordCells($0).bytes(at: 0) }
    }

    func peerSettings(_ kind: PeerSettingKind, owner: Int64, limit: Int) throws -> [(scope: SettingScope, value: [UInt8])] {
        try query(PeerSettings.self, owner, Int16(kind.rawValue), Int64(limit)).compactMap { row in
            let cells = PostgresRecordCells(row)
            guard let scope = SettingScope(typeCode: Int(try cells.int64(at: 0)), id: try cells.int64(at: 1)) else { return nil }
            return (scope, try cells.bytes(at: 2))
        }
    }

    func setPeerSetting(_ kind: PeerSettingKind, owner: Int64, scope: SettingScope, value: [UInt8]?, date: Int32) throws {
        if let value {
            try change(UpsertPeerSetting.self, owner, Int16(kind.rawValue), Int16(scope.typeCode), scope.id, ByteBuffer(bytes: value), date)
        } else {
            try change(DeletePeerSetting.self, owner, Int16(kind.rawValue), Int16(scope.typeCode), scope.id)
        }
    }
}
