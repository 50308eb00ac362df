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
        if let settings {
            try db.cachedStatement(sql: """
                INSERT INTO notification_settings (peer, mute_until, silent, show_previews) VALUES (?, ?, ?, ?)
                ON CONFLICT(peer) DO UPDATE SET mute_until = excluded.mute_until, silent = excluded.silent,
                    show_previews = excluded.show_previews
                """).execute(arguments: [peer.rawValue, settings.muteUntil, settings.silent, settings.showPreviews])
        } else {
            try db.cachedStatement(sql: "DELETE FROM notification_settings WHERE peer = ?").execute(arguments: [peer.rawValue])
        }
        changes.notificationSettings.insert(peer)
    }

    /// A chat's notification settings, nil when none are stored.
    public func notificationSettings(_ peer: PeerID) throws -> NotificationSettings? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT mute_until, silent, show_previews FROM notification_settings WHERE peer = ?"),
                         arguments: [peer.rawValue])
            .map { NotificationSettings(muteUntil: $0["mute_until"], silent: $0["silent"], showPreviews: $0["show_previews"]) }
    }

    /// Stores the notification settings of a kind of chat (every private chat, group or channel), or removes them (nil).
    public func setNotificationSettings(_ kind: ChatKind, _ settings: NotificationSettings?) throws {
        if let settings {
            try db.cachedStatement(sql: """
                INSERT INTO kind_notification_settings (kind, mute_until, silent, show_previews) VALUES (?, ?, ?, ?)
                ON CONFLICT(kind) DO UPDATE SET mute_until = excluded.mute_until, silent = excluded.silent,
                    show_previews = excluded.show_previews
                """).execute(arguments: [kind.rawValue, settings.muteUntil, settings.silent, settings.showPreviews])
        } else {
            try db.cachedStatement(sql: "DELETE FROM kind_notification_settings WHERE kind = ?").execute(arguments: [kind.rawValue])
        }
        changes.kindNotificationSettings.insert(kind)
    }

    /// The notification settings of a kind of chat, nil when none are stored.
    public func notificationSettings(_ kind: ChatKind) throws -> NotificationSettings? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT mute_until, silent, show_previews FROM kind_notification_settings WHERE kind = ?"),
                         arguments: [kind.rawValue])
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
