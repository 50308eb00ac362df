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
/// Kept in memory: a restart forgets pending codes and the client asks for a new one (PHONE_CODE_EXPIRED), which is
/// what Telegram does after the code's lifetime. The clock is the caller's (unix seconds).
final class LoginCodes: Sendable {
    struct Pending: Sendable {
        let phone: String
        let code: String
        let authKeyID: UInt64
        let expires: Int32
        /// A sign-in gave the right code for a phone with no account: `auth.signUp` may use this hash once.
        var verified = false
        var wrongAttempts = 0
    }

    /// Codes live this long (seconds).
    static let lifetime: Int32 = 300
    static let wrongPerHash = 5
    static let wrongPerPhone = 10
    static let codesPerPhone = 5
    static let codesPerKey = 10
    static let window: Int32 = 3_600
    static let maximumPending = 10_000

    private struct State {
        var pending: [String: Pending] = [:]
        /// Times of recent events, per phone or key, pruned to `window`.
        var codesByPhone: [String: [Int32]] = [:]
        var codesByKey: [UInt64: [Int32]] = [:]
        var wrongByPhone: [String: [Int32]] = [:]

        mutating func prune(now: Int32) {
            pending = pending.filter { $0.value.expires > now }
            let recent = { (times: [Int32]) -> [Int32]? in
                let kept = times.filter { $0 > now - LoginCodes.window }
                return kept.isEmpty ? nil : kept
            }
            codesByPhone = codesByPhone.compactMapValues(recent)
            codesByKey = codesByKey.compactMapValues(recent)
            wrongByPhone = wrongByPhone.compactMapValues(recent)
        }
    }

    private let state = Mutex(State())
    /// When the maps were last pruned of what `window` has passed.
    private let lastPrune = Mutex<Int32>(0)
    /// A fixed code for development (`--login-code`); nil makes each code random.
    let fixedCode: String?

    init(fixedCode: String?) {
        self.fixedCode = fixedCode
    }

    /// Seconds until the oldest of `times` within the window leaves it, when the window already holds `limit` events.
    private static func wait(_ times: [Int32]?, limit: Int, now: Int32) -> Int32? {
        guard let recent = times?.filter({ $0 > now - window }), recent.count >= limit, let oldest = recent.min() else { return nil }
        return max(1, oldest + window - now)
    }

    /// Creates a code for `phone` asked by `authKeyID`; returns (phone_code_hash, code).
    func issue(phone: String, authKeyID: UInt64, now: Int32,
               random: inout some RandomNumberGenerator) throws(RPCError) -> (hash: String, code: String) {
        let code = fixedCode ?? String(format: "%05d", Int.random(in: 0..<100_000, using: &random))
        let hash = RandomBytes.make(8, using: &random).map { String(format: "%02x", $0) }.joined()
        let limited = fixedCode == nil
        let refusal: RPCError? = state.withLock { state in
            if limited {
                if let wait = Self.wait(state.codesByPhone[phone], limit: Self.codesPerPhone, now: now)
                    ?? Self.wait(state.codesByKey[authKeyID], limit: Self.codesPerKey, now: now) { return .floodWait(wait) }
            }
            if state.pending.count >= Self.maximumPending { state.prune(now: now) }
            guard state.pending.count < Self.maximumPending else { return .floodWait(Self.lifetime) }
            // One live code per phone: a new one replaces the last (whose hash is then expired).
            state.pending = state.pending.filter { $0.value.phone != phone || $0.value.expires <= now }
            state.pending[hash] = Pending(phone: phone, code: code, authKeyID: authKeyID, expires: now + Self.lifetime)
            if limited {
                state.codesByPhone[phone, default: []].append(now)
                state.codesByKey[authKeyID, default: []].append(now)
            }
            return nil
        }
        if let refusal { throw refusal }
        pruneIfDue(now: now)
        return (hash, code)
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
    func check(phone: String, hash: String, code: String?, authKeyID: UInt64, now: Int32) -> Check {
        state.withLock { state in
            if let wait = Self.wait(state.wrongByPhone[phone], limit: Self.wrongPerPhone, now: now) { return .flood(wait) }
            guard let entry = state.pending[hash], entry.phone == phone, entry.authKeyID == authKeyID, entry.expires > now,
                  !entry.verified
            else { return .expired }
            guard entry.code == code else {
                state.wrongByPhone[phone, default: []].append(now)
                state.pending[hash]?.wrongAttempts += 1
                if entry.wrongAttempts + 1 >= Self.wrongPerHash { state.pending[hash] = nil }
                return .invalid
            }
            state.pending[hash]?.verified = true
            return .ok
        }
    }

    /// The sign-in that verified `hash` logged in an existing account: the hash is used up.
    func consume(hash: String) {
        _ = state.withLock { $0.pending.removeValue(forKey: hash) }
    }

    /// Uses up a live hash of this key whose code a sign-in already checked (`auth.signUp`); false if there is none.
    func consumeVerified(phone: String, hash: String, authKeyID: UInt64, now: Int32) -> Bool {
        state.withLock { state in
            guard let entry = state.pending[hash], entry.phone == phone, entry.authKeyID == authKeyID, entry.expires > now,
                  entry.verified
            else { return false }
            state.pending[hash] = nil
            return true
        }
    }

    /// Codes waiting now (for tests and metrics).
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The live code of a phone: what an SMS or app-message gateway would deliver (the server logs it; tests read it).
    func liveCode(phone: String, now: Int32) -> String? {
        state.withLock { $0.pending.values.first { $0.phone == phone && $0.expires > now && !$0.verified }?.code }
    }

    private func pruneIfDue(now: Int32) {
        let due = lastPrune.withLock { last in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        if due { state.withLock { $0.prune(now: now) } }
    }
}

extension RPCError {
    /// `420 FLOOD_WAIT_X` (core.telegram.org/api/errors#420-flood).
    static func floodWait(_ seconds: Int32) -> RPCError { RPCError(code: 420, message: "FLOOD_WAIT_\(seconds)") }
}
