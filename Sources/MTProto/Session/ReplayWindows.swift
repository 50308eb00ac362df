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

    /// Sharded by auth key, so that connections on different event loops seldom wait for one another.
    private let shards: [Shard] = (0..<16).map { _ in Shard() }

    private final class Shard: Sendable {
        let state = Mutex(State())
    }

    public init() {}

    /// Accepts `messageID` of a session (and remembers it) or returns why not, as `MessageIDValidator.check` does.
    public func check(_ messageID: Int64, authKeyID: UInt64, sessionID: Int64, now: Double) -> BadMessageCode? {
        shards[Int(authKeyID % UInt64(shards.count))].state.withLock { state in
            if now - state.lastSweep > Self.lifetime { state.sweep(now: now) }
            // One lookup, mutated in place (a copy of an entry would copy its set of ids every packet).
            return state.keys[authKeyID, default: []].check(messageID, session: sessionID, now: now)
        }
    }

    /// Starts the session's window afresh, refusing msg_ids below `floor` (msg_id −16, "too low", which clients answer
    /// by sending again with a new id): the session was served by another process since this one saw it, and that
    /// process's window is not here, so what it accepted before `floor` must not be accepted again here.
    public func takeOver(authKeyID: UInt64, sessionID: Int64, floor: Int64, now: Double) {
        shards[Int(authKeyID % UInt64(shards.count))].state.withLock { state in
            var entries = state.keys[authKeyID, default: []]
            entries.removeAll { $0.session == sessionID }
            while entries.count >= Self.sessionsPerKey, let oldest = entries.indices.min(by: { entries[$0].lastUsed < entries[$1].lastUsed }) {
                entries.remove(at: oldest)
            }
            entries.append(Entry(session: sessionID, validator: MessageIDValidator(floor: floor), lastUsed: now))
            state.keys[authKeyID] = entries
        }
    }

    /// Sessions remembered now (for tests).
    public var sessionCount: Int { shards.reduce(0) { total, shard in total + shard.state.withLock { $0.keys.values.reduce(0) { $0 + $1.count } } } }
}

extension [ReplayWindows.Entry] {
    /// The check of one key's sessions: its window found (or opened, the least recently used one making room), then
    /// asked.
    fileprivate mutating func check(_ messageID: Int64, session: Int64, now: Double) -> BadMessageCode? {
        let index: Int
        if let found = firstIndex(where: { $0.session == session }) {
            index = found
        } else {
            while count >= ReplayWindows.sessionsPerKey, let oldest = indices.min(by: { self[$0].lastUsed < self[$1].lastUsed }) {
                remove(at: oldest)
            }
            append(ReplayWindows.Entry(session: session, validator: MessageIDValidator(), lastUsed: now))
            index = count - 1
        }
        self[index].lastUsed = now
        return self[index].validator.check(messageID, now: now)
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
