import Synchronization

/// The msg_ids a server has seen per (auth key, session), shared by every connection of a server, so that a packet
/// captured on one connection is refused as a duplicate on the next one too (core.telegram.org/mtproto/security_guidelines:
/// the server must keep msg_ids of the session to ignore replays; a session outlives its TCP connections).
///
/// A window unused for longer than msg_id's past window (300 s) plus its future window (30 s) is dropped: every
/// msg_id it could still reject is by then refused as too old anyway. At most `sessionsPerKey` windows are kept per
/// key (the least recently used goes): only the key's owner can open sessions on it, so that bound costs nobody else.
public final class ReplayWindows: Sendable {
    public static let sessionsPerKey = 16
    static let lifetime = Double(MessageIDValidator.pastWindow + MessageIDValidator.futureWindow)

    fileprivate struct Entry {
        var session: Int64
        var validator: MessageIDValidator
        var lastUsed: Double
    }

    fileprivate struct State {
        var keys: [UInt64: [Entry]] = [:]
        var lastSweep: Double = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Accepts `messageID` of a session (and remembers it) or returns why not, as `MessageIDValidator.check` does.
    public func check(_ messageID: Int64, authKeyID: UInt64, sessionID: Int64, now: Double) -> BadMessageCode? {
        state.withLock { state in
            if now - state.lastSweep > Self.lifetime { state.sweep(now: now) }
            // Mutated in place through the dictionary (a copy of an entry would copy its set of ids every packet).
            let index: Int
            if let found = state.keys[authKeyID]?.firstIndex(where: { $0.session == sessionID }) {
                index = found
            } else {
                state.keys[authKeyID, default: []].evictLeastRecentlyUsed(keeping: Self.sessionsPerKey - 1)
                state.keys[authKeyID, default: []].append(Entry(session: sessionID, validator: MessageIDValidator(), lastUsed: now))
                index = (state.keys[authKeyID]?.count ?? 1) - 1
            }
            state.keys[authKeyID, default: []][index].lastUsed = now
            return state.keys[authKeyID, default: []][index].validator.check(messageID, now: now)
        }
    }

    /// Sessions remembered now (for tests).
    public var sessionCount: Int { state.withLock { $0.keys.values.reduce(0) { $0 + $1.count } } }
}

extension [ReplayWindows.Entry] {
    fileprivate mutating func evictLeastRecentlyUsed(keeping limit: Int) {
        while count > limit, let oldest = indices.min(by: { self[$0].lastUsed < self[$1].lastUsed }) { remove(at: oldest) }
    }
}

extension ReplayWindows.State {
    fileprivate mutating func sweep(now: Double) {
        lastSweep = now
        keys = keys.compactMapValues { entries in
            let live = entries.filter { now - $0.lastUsed <= ReplayWindows.lifetime }
            return live.isEmpty ? nil : live
        }
    }
}
