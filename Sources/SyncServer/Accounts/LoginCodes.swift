import Foundation
import Synchronization

/// Login codes sent by `auth.sendCode` and checked by `auth.signIn`/`auth.signUp`. Kept in memory: a restart
/// forgets pending codes and the client asks for a new one (PHONE_CODE_EXPIRED), which is what Telegram does
/// after the code's lifetime.
final class LoginCodes: Sendable {
    struct Pending: Sendable {
        let phone: String
        let code: String
        let expires: Int32
    }

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
        let hash = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
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

    /// Checks a code against the hash `auth.sendCode` returned for this phone; a correct code is used up.
    func check(phone: String, hash: String, code: String?, now: Int32, consume: Bool) -> Check {
        pending.withLock { codes in
            guard let entry = codes[hash], entry.phone == phone else { return .expired }
            guard entry.expires > now else {
                codes[hash] = nil
                return .expired
            }
            guard let code, code == entry.code else { return .invalid }
            if consume { codes[hash] = nil }
            return .ok
        }
    }
}
