/// Pending login codes and the events their limits count, written once for both backends (`SQLText`): in the
/// database, so that every process of a data center knows a code another one sent (a client may reconnect to any
/// process between `auth.sendCode` and `auth.signIn`).
enum LoginSQL {
    enum Code: SQLText {
        static let text = """
            SELECT phone, code, auth_key_id, CAST(expires AS BIGINT), CAST(verified AS BIGINT), CAST(wrong AS BIGINT)
            FROM login_codes WHERE hash = ?
            """
    }
    enum LiveCode: SQLText { static let text = "SELECT code FROM login_codes WHERE phone = ? AND expires > ? AND verified = 0 LIMIT 1" }
    enum PendingCount: SQLText { static let text = "SELECT COUNT(*) FROM login_codes" }
    enum InsertCode: SQLText {
        static let text = "INSERT INTO login_codes (hash, phone, code, auth_key_id, expires, verified, wrong) VALUES (?, ?, ?, ?, ?, 0, 0)"
    }
    enum DeletePhoneCodes: SQLText { static let text = "DELETE FROM login_codes WHERE phone = ?" }
    enum DeleteCode: SQLText { static let text = "DELETE FROM login_codes WHERE hash = ?" }
    enum CountWrong: SQLText { static let text = "UPDATE login_codes SET wrong = wrong + 1 WHERE hash = ?" }
    enum Verify: SQLText { static let text = "UPDATE login_codes SET verified = 1 WHERE hash = ?" }
    enum DeleteExpiredCodes: SQLText { static let text = "DELETE FROM login_codes WHERE expires <= ?" }
    enum RecordEvent: SQLText {
        static let text = """
            INSERT INTO login_events (kind, subject, at, hits) VALUES (?, ?, ?, 1)
            ON CONFLICT (kind, subject, at) DO UPDATE SET hits = login_events.hits + 1
            """
    }
    enum Events: SQLText {
        static let text = """
            SELECT CAST(COALESCE(SUM(hits), 0) AS BIGINT), CAST(COALESCE(MIN(at), 0) AS BIGINT)
            FROM login_events WHERE kind = ? AND subject = ? AND at > ?
            """
    }
    enum DeleteOldEvents: SQLText { static let text = "DELETE FROM login_events WHERE at <= ?" }
}

/// A code `auth.sendCode` gave, as stored.
public struct LoginCodeRecord: Sendable, Equatable {
    public var phone: String
    public var code: String
    public var authKeyID: UInt64
    public var expires: Int32
    /// A sign-in gave the right code for a phone with no account: `auth.signUp` may use the hash once.
    public var verified: Bool
    public var wrongAttempts: Int
}

/// What login limits count, each per subject (a phone, or an auth key in hex).
public enum LoginEventKind: Int16, Sendable {
    case codeForPhone = 0
    case codeForKey = 1
    case wrongCodeForPhone = 2
}

public protocol LoginStorageReader {
    func loginCode(hash: String) throws -> LoginCodeRecord?
    /// The live (unexpired, unverified) code of a phone.
    func liveLoginCode(phone: String, now: Int32) throws -> String?
    func pendingLoginCodeCount() throws -> Int
    /// How many `kind` events `subject` had after `since`, and the time of the oldest of them (0 when none).
    func loginEvents(_ kind: LoginEventKind, subject: String, since: Int32) throws -> (count: Int, oldest: Int32)
}

public protocol LoginStorageWriter {
    /// Stores a code for `hash`, replacing every other code of its phone.
    func insertLoginCode(hash: String, _ record: LoginCodeRecord) throws
    func deleteLoginCode(hash: String) throws
    func countWrongLoginCode(hash: String) throws
    func verifyLoginCode(hash: String) throws
    func recordLoginEvent(_ kind: LoginEventKind, subject: String, at: Int32) throws
    /// Removes codes expired by `now` and events at or before `eventsUpTo`.
    func pruneLogins(now: Int32, eventsUpTo: Int32) throws
}

extension SQLStatements {
    func loginCode(hash: String) throws -> LoginCodeRecord? {
        try row(LoginSQL.Code.self, hash) { cells in
            LoginCodeRecord(phone: try cells.text(at: 0), code: try cells.text(at: 1), authKeyID: UInt64(bitPattern: try cells.int64(at: 2)),
                            expires: Int32(truncatingIfNeeded: try cells.int64(at: 3)), verified: try cells.int64(at: 4) != 0,
                            wrongAttempts: Int(try cells.int64(at: 5)))
        }
    }

    func liveLoginCode(phone: String, now: Int32) throws -> String? {
        try row(LoginSQL.LiveCode.self, phone, now) { try $0.text(at: 0) }
    }

    func pendingLoginCodeCount() throws -> Int { Int(try integer(LoginSQL.PendingCount.self)) }

    func loginEvents(_ kind: LoginEventKind, subject: String, since: Int32) throws -> (count: Int, oldest: Int32) {
        try row(LoginSQL.Events.self, Code(Int(kind.rawValue)), subject, since) { cells in
            (Int(try cells.int64(at: 0)), Int32(truncatingIfNeeded: try cells.int64(at: 1)))
        } ?? (0, 0)
    }

    func insertLoginCode(hash: String, _ record: LoginCodeRecord) throws {
        try execute(LoginSQL.DeletePhoneCodes.self, record.phone)
        try execute(LoginSQL.InsertCode.self, hash, record.phone, record.code, Int64(bitPattern: record.authKeyID), record.expires)
    }

    func deleteLoginCode(hash: String) throws { try execute(LoginSQL.DeleteCode.self, hash) }

    func countWrongLoginCode(hash: String) throws { try execute(LoginSQL.CountWrong.self, hash) }

    func verifyLoginCode(hash: String) throws { try execute(LoginSQL.Verify.self, hash) }

    func recordLoginEvent(_ kind: LoginEventKind, subject: String, at: Int32) throws {
        try execute(LoginSQL.RecordEvent.self, Code(Int(kind.rawValue)), subject, at)
    }

    func pruneLogins(now: Int32, eventsUpTo: Int32) throws {
        try execute(LoginSQL.DeleteExpiredCodes.self, now)
        try execute(LoginSQL.DeleteOldEvents.self, eventsUpTo)
    }
}
