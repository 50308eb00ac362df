/// Which process serves each MTProto session, written once for both backends (used when several processes share the
/// database): a process that takes a session over from another knows that the other's replay window for it is not
/// here (`ServerDelegate.claimSession`).
enum SessionClaimSQL {
    enum Origin: SQLText { static let text = "SELECT origin FROM session_claims WHERE auth_key_id = ? AND session_id = ?" }
    enum Claim: SQLText {
        static let text = """
            INSERT INTO session_claims (auth_key_id, session_id, origin, claimed_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (auth_key_id, session_id) DO UPDATE SET origin = excluded.origin, claimed_at = excluded.claimed_at
            """
    }
    enum Prune: SQLText { static let text = "DELETE FROM session_claims WHERE claimed_at < ?" }
}

public protocol SessionClaimStorageReader {
    /// The process that claimed the session last, nil when none did (or its claim was pruned).
    func sessionClaim(authKeyID: UInt64, sessionID: Int64) throws -> Int64?
}

public protocol SessionClaimStorageWriter {
    func claimSession(authKeyID: UInt64, sessionID: Int64, origin: Int64, at date: Int32) throws
    /// Removes claims made before `date`.
    func pruneSessionClaims(before date: Int32) throws
}

extension SQLStatements {
    func sessionClaim(authKeyID: UInt64, sessionID: Int64) throws -> Int64? {
        try row(SessionClaimSQL.Origin.self, Int64(bitPattern: authKeyID), sessionID) { try $0.int64(at: 0) }
    }

    func claimSession(authKeyID: UInt64, sessionID: Int64, origin: Int64, at date: Int32) throws {
        try execute(SessionClaimSQL.Claim.self, Int64(bitPattern: authKeyID), sessionID, origin, date)
    }

    func pruneSessionClaims(before date: Int32) throws {
        try execute(SessionClaimSQL.Prune.self, date)
    }
}
