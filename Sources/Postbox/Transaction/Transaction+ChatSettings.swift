import Foundation
import GRDB

/// Drafts and notification settings per chat, as typed rows (what `DraftView` and `NotificationSettingsView` show).
extension Transaction {
    /// Stores a chat's draft, or removes it (nil).
    public func setDraft(_ peer: PeerID, _ draft: Draft?) throws {
        if let draft {
            try db.cachedStatement(sql: """
                INSERT INTO drafts (peer, text, reply_to, date) VALUES (?, ?, ?, ?)
                ON CONFLICT(peer) DO UPDATE SET text = excluded.text, reply_to = excluded.reply_to, date = excluded.date
                """).execute(arguments: [peer.rawValue, draft.text, draft.replyTo, draft.date])
        } else {
            try db.cachedStatement(sql: "DELETE FROM drafts WHERE peer = ?").execute(arguments: [peer.rawValue])
        }
        changes.drafts.insert(peer)
    }

    /// A chat's draft, nil when none.
    public func draft(_ peer: PeerID) throws -> Draft? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT text, reply_to, date FROM drafts WHERE peer = ?"), arguments: [peer.rawValue])
            .map { Draft(text: $0["text"], replyTo: $0["reply_to"], date: $0["date"]) }
    }

    /// Stores a chat's notification settings, or removes them (nil).
    public func setNotificationSettings(_ peer: PeerID, _ settings: NotificationSettings?) throws {
        try writeSettings(settings, table: "notification_settings", key: "peer", value: peer.rawValue)
        changes.notificationSettings.insert(peer)
    }

    /// A chat's notification settings, nil when none are stored.
    public func notificationSettings(_ peer: PeerID) throws -> NotificationSettings? {
        try readSettings(table: "notification_settings", key: "peer", value: peer.rawValue)
    }

    /// Stores the notification settings of a kind of chat (every private chat, group or channel), or removes them (nil).
    public func setNotificationSettings(_ kind: ChatKind, _ settings: NotificationSettings?) throws {
        try writeSettings(settings, table: "kind_notification_settings", key: "kind", value: Int64(kind.rawValue))
        changes.kindNotificationSettings.insert(kind)
    }

    /// The notification settings of a kind of chat, nil when none are stored.
    public func notificationSettings(_ kind: ChatKind) throws -> NotificationSettings? {
        try readSettings(table: "kind_notification_settings", key: "kind", value: Int64(kind.rawValue))
    }

    /// The two settings tables (per chat, per kind of chat) have the same columns under their own key.
    private func writeSettings(_ settings: NotificationSettings?, table: String, key: String, value: Int64) throws {
        if let settings {
            try db.cachedStatement(sql: """
                INSERT INTO \(table) (\(key), mute_until, silent, show_previews) VALUES (?, ?, ?, ?)
                ON CONFLICT(\(key)) DO UPDATE SET mute_until = excluded.mute_until, silent = excluded.silent,
                    show_previews = excluded.show_previews
                """).execute(arguments: [value, settings.muteUntil, settings.silent, settings.showPreviews])
        } else {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(key) = ?").execute(arguments: [value])
        }
    }

    private func readSettings(table: String, key: String, value: Int64) throws -> NotificationSettings? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT mute_until, silent, show_previews FROM \(table) WHERE \(key) = ?"),
                         arguments: [value])
            .map { NotificationSettings(muteUntil: $0["mute_until"], silent: $0["silent"], showPreviews: $0["show_previews"]) }
    }

    /// Stores a peer's bio (a user's `about`), or removes it (nil or empty).
    public func setAbout(_ peer: PeerID, _ about: String?) throws {
        if let about, !about.isEmpty {
            try db.cachedStatement(sql: """
                INSERT INTO peer_about (peer, about) VALUES (?, ?) ON CONFLICT(peer) DO UPDATE SET about = excluded.about
                """).execute(arguments: [peer.rawValue, about])
        } else {
            try db.cachedStatement(sql: "DELETE FROM peer_about WHERE peer = ?").execute(arguments: [peer.rawValue])
        }
        changes.peers.insert(peer)
    }

    /// A peer's stored bio, nil when none is stored.
    public func about(_ peer: PeerID) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT about FROM peer_about WHERE peer = ?"), arguments: [peer.rawValue])
    }
}
