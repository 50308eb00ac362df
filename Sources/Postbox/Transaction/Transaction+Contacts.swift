import Foundation
import GRDB

/// The account's contact list and the users it blocked, as typed rows (what the contacts and blocked-users views
/// show).
extension Transaction {
    /// Replaces the whole contact list (the server's answer to a full read).
    public func replaceContacts(_ entries: [ContactEntry]) throws {
        try db.execute(sql: "DELETE FROM contacts")
        for entry in entries { try setContact(entry) }
        changes.contactsChanged = true
    }

    /// Adds a contact or replaces its entry.
    public func setContact(_ entry: ContactEntry) throws {
        try db.cachedStatement(sql: """
            INSERT INTO contacts (peer, first_name, last_name, mutual) VALUES (?, ?, ?, ?)
            ON CONFLICT(peer) DO UPDATE SET first_name = excluded.first_name, last_name = excluded.last_name, mutual = excluded.mutual
            """).execute(arguments: [entry.peer.rawValue, entry.firstName, entry.lastName, entry.isMutual])
        changes.contactsChanged = true
    }

    /// Removes a contact (nothing when it is not one).
    public func removeContact(_ peer: PeerID) throws {
        try db.cachedStatement(sql: "DELETE FROM contacts WHERE peer = ?").execute(arguments: [peer.rawValue])
        changes.contactsChanged = true
    }

    /// The contact list, by saved name.
    public func contacts() throws -> [ContactEntry] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT peer, first_name, last_name, mutual FROM contacts ORDER BY first_name, last_name, peer"))
            .map { row in
                ContactEntry(peer: PeerID(rawValue: row["peer"]), firstName: row["first_name"], lastName: row["last_name"],
                             isMutual: row["mutual"])
            }
    }

    /// Marks a peer blocked or not.
    public func setBlocked(_ peer: PeerID, _ blocked: Bool) throws {
        let sql = blocked ? "INSERT OR IGNORE INTO blocked_peers (peer) VALUES (?)" : "DELETE FROM blocked_peers WHERE peer = ?"
        try db.cachedStatement(sql: sql).execute(arguments: [peer.rawValue])
        changes.blockedChanged = true
    }

    /// Replaces the whole set of blocked peers (the server's answer to a full read).
    public func replaceBlockedPeers(_ peers: Set<PeerID>) throws {
        try db.execute(sql: "DELETE FROM blocked_peers")
        for peer in peers { try setBlocked(peer, true) }
        changes.blockedChanged = true
    }

    /// The blocked peers.
    public func blockedPeers() throws -> Set<PeerID> {
        Set(try Int64.fetchAll(db.cachedStatement(sql: "SELECT peer FROM blocked_peers")).map(PeerID.init(rawValue:)))
    }
}
