import Foundation
import MTProto
import Synchronization

/// Login codes sent by `auth.sendCode` and checked by `auth.signIn`/`auth.signUp`, made so that a code cannot be
/// guessed (core.telegram.org/api/auth):
/// - a `phone_code_hash` works only on the auth key that asked for it, for `lifetime` seconds, and once: the
///   sign-in that gives the right code uses it up (or, for a new phone, the sign-up after it does);
/// - a hash is void after `wrongPerHash` wrong codes, and a phone takes at most `wrongPerPhone` wrong codes an hour
///   across all its hashes (then `FLOOD_WAIT_X`), so many keys guessing in parallel gain nothing;
/// - `auth.sendCode` is limited per phone (`codesPerPhone` an hour) and per auth key (`codesPerKey` an hour) with
///   `FLOOD_WAIT_X`, and at most `maximumPending` codes wait at once (a few hundred bytes each).
///
/// With a fixed development code (`--login-code`) the code is no secret, so sending codes is not limited (test
/// suites log in many times); the wrong-code limits, single use and binding to the key still hold.
///
/// Kept in the database (`LoginStorageWriter`), so that every process of a data center knows a code another one
/// sent: a client may reconnect to any process between `auth.sendCode` and `auth.signIn`. Each call runs inside the
/// handler's transaction. The clock is the caller's (unix seconds).
final class LoginCodes: Sendable {
    /// Codes live this long (seconds).
    static let lifetime: Int32 = 300
    static let wrongPerHash = 5
    static let wrongPerPhone = 10
    static let codesPerPhone = 5
    static let codesPerKey = 10
    static let window: Int32 = 3_600
    static let maximumPending = 10_000

    /// When this process last removed expired codes and events older than `window`.
    private let lastPrune = Mutex<Int32>(0)
    /// A fixed code for development (`--login-code`); nil makes each code random.
    let fixedCode: String?

    init(fixedCode: String?) {
        self.fixedCode = fixedCode
    }

    /// Seconds until the oldest event of `kind` for `subject` within the window leaves it, when the window already
    /// holds `limit` of them.
    private static func wait(_ kind: LoginEventKind, _ subject: String, limit: Int, now: Int32, in tx: any StorageReader) throws -> Int32? {
        let (count, oldest) = try tx.loginEvents(kind, subject: subject, since: now - window)
        guard count >= limit else { return nil }
        return max(1, oldest + window - now)
    }

    private static func subject(_ authKeyID: UInt64) -> String { String(authKeyID, radix: 16) }

    /// A new phone_code_hash and a random code (drawn before the transaction, which may run more than once).
    static func draw(using random: inout some RandomNumberGenerator) -> (hash: String, code: String) {
        let code = String(format: "%05d", Int.random(in: 0..<100_000, using: &random))
        return (RandomBytes.make(8, using: &random).map { String(format: "%02x", $0) }.joined(), code)
    }

    /// Stores a code for `phone` asked by `authKeyID` under `drawn.hash`: the fixed development code, else
    /// `drawn.code`; returns the code. Throws `FLOOD_WAIT_X` over the limits.
    func issue(phone: String, authKeyID: UInt64, now: Int32, drawn: (hash: String, code: String), in tx: any StorageWriter) throws -> String {
        let (hash, code) = (drawn.hash, fixedCode ?? drawn.code)
        let limited = fixedCode == nil
        if limited {
            if let wait = try Self.wait(.codeForPhone, phone, limit: Self.codesPerPhone, now: now, in: tx)
                ?? Self.wait(.codeForKey, Self.subject(authKeyID), limit: Self.codesPerKey, now: now, in: tx) {
                throw RPCError.floodWait(wait)
            }
        }
        try pruneIfDue(now: now, in: tx)
        if try tx.pendingLoginCodeCount() >= Self.maximumPending {
            try tx.pruneLogins(now: now, eventsUpTo: now - Self.window)
            guard try tx.pendingLoginCodeCount() < Self.maximumPending else { throw RPCError.floodWait(Self.lifetime) }
        }
        // One live code per phone: a new one replaces the last (whose hash is then expired).
        try tx.insertLoginCode(hash: hash, LoginCodeRecord(phone: phone, code: code, authKeyID: authKeyID, expires: now + Self.lifetime,
                                                          verified: false, wrongAttempts: 0))
        if limited {
            try tx.recordLoginEvent(.codeForPhone, subject: phone, at: now)
            try tx.recordLoginEvent(.codeForKey, subject: Self.subject(authKeyID), at: now)
        }
        return code
    }

    enum Check: Equatable {
        case ok
        case invalid
        case expired
        /// Too many wrong codes for this phone: wait this many seconds.
        case flood(Int32)
    }

    /// Checks a code against the hash `auth.sendCode` gave this key for this phone. The right code uses the hash up,
    /// except that it stays for one `auth.signUp` (`consumeVerified`) when the phone has no account yet.
    func check(phone: String, hash: String, code: String?, authKeyID: UInt64, now: Int32, in tx: any StorageWriter) throws -> Check {
        if let wait = try Self.wait(.wrongCodeForPhone, phone, limit: Self.wrongPerPhone, now: now, in: tx) { return .flood(wait) }
        guard let entry = try tx.loginCode(hash: hash), entry.phone == phone, entry.authKeyID == authKeyID, entry.expires > now,
              !entry.verified
        else { return .expired }
        guard entry.code == code else {
            try tx.recordLoginEvent(.wrongCodeForPhone, subject: phone, at: now)
            if entry.wrongAttempts + 1 >= Self.wrongPerHash { try tx.deleteLoginCode(hash: hash) } else { try tx.countWrongLoginCode(hash: hash) }
            return .invalid
        }
        try tx.verifyLoginCode(hash: hash)
        return .ok
    }

    /// The sign-in that verified `hash` logged in an existing account: the hash is used up.
    func consume(hash: String, in tx: any StorageWriter) throws {
        try tx.deleteLoginCode(hash: hash)
    }

    /// Uses up a live hash of this key whose code a sign-in already checked (`auth.signUp`); false if there is none.
    func consumeVerified(phone: String, hash: String, authKeyID: UInt64, now: Int32, in tx: any StorageWriter) throws -> Bool {
        guard let entry = try tx.loginCode(hash: hash), entry.phone == phone, entry.authKeyID == authKeyID, entry.expires > now,
              entry.verified
        else { return false }
        try tx.deleteLoginCode(hash: hash)
        return true
    }

    /// Removes expired codes and old events once a minute per process.
    private func pruneIfDue(now: Int32, in tx: any StorageWriter) throws {
        let due = lastPrune.withLock { last in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        if due { try tx.pruneLogins(now: now, eventsUpTo: now - Self.window) }
    }
}

extension RPCError {
    /// `420 FLOOD_WAIT_X` (core.telegram.org/api/errors#420-flood).
    static func floodWait(_ seconds: Int32) -> RPCError { RPCError(code: 420, message: "FLOOD_WAIT_\(seconds)") }
}
