import Foundation
import MTProto
import Synchronization

/// Login codes sent by `auth.sendCode` and checked by `auth.signIn`/`auth.signUp`. Kept in memory: a restart
/// forgets pending codes and the client asks for a new one (PHONE_CODE_EXPIRED), which is what Telegram does
/// after the code's lifetime.
final class LoginCodes: Sendable {
    struct Pending: Sendable {
        let phone: String
        let code: String
        let expires: Int32
        /// A sign-in gave the right code: `auth.signUp` may use this hash (it carries no code itself).
        var verified = false
        var wrongAttempts = 0
    }

    /// Wrong codes allowed per hash before it is void (a 5-digit code must not be guessable by retrying).
    static let maximumWrongAttempts = 5

    /// Codes live this long (seconds).
    static let lifetime: Int32 = 300
    private let pending = Mutex<[String: Pending]>([:])
    /// A fixed code for development (`--login-code`); nil makes each code random.
    let fixedCode: String?

    init(fixedCode: String?) {
        self.fixedCode = fixedCode
    }

    /// Creates a code for `phone`; returns (phone_code_hash, code).
    func issue(phone: String, now: Int32, random: inout some RandomNumberGenerator) -> (hash: String, code: String) {
        let code = fixedCode ?? String(format: "%05d", Int.random(in: 0..<100_000, using: &random))
        let hash = RandomBytes.make(8, using: &random).map { String(format: "%02x", $0) }.joined()
        pending.withLock { codes in
            codes = codes.filter { $0.value.expires > now }
            codes[hash] = Pending(phone: phone, code: code, expires: now + Self.lifetime)
        }
        return (hash, code)
    }

    enum Check: Equatable {
        case ok
        case invalid
        case expired
    }

    /// Checks a code against the hash `auth.sendCode` returned for this phone. The code stays valid for its lifetime
    /// (a sign-in that answers sign-up-required is followed by `auth.signUp` with the same hash).
    func check(phone: String, hash: String, code: String?, now: Int32) -> Check {
        pending.withLock { codes in
            guard let entry = codes[hash], entry.phone == phone, entry.expires > now else { return .expired }
            guard entry.code == code else {
                codes[hash]?.wrongAttempts += 1
                if entry.wrongAttempts + 1 >= Self.maximumWrongAttempts { codes[hash] = nil }
                return .invalid
            }
            codes[hash]?.verified = true
            return .ok
        }
    }

    /// A live hash whose code a sign-in already checked.
    func isVerified(phone: String, hash: String, now: Int32) -> Bool {
        pending.withLock { codes in
            guard let entry = codes[hash], entry.phone == phone, entry.expires > now else { return false }
            return entry.verified
        }
    }
}
