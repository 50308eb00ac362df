import Foundation
import NIOCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The accepted connections still open, counted in all and per peer address, and which of them are established
/// (`ConnectionEstablished`).
///
/// At capacity a new connection takes the place of the oldest one that is not established yet — a stranger that
/// connected and has not finished a key exchange — rather than being refused: a flood of idle sockets then delays
/// a real client by at most one key exchange instead of locking it out until the idle ones time out. Only when
/// every open connection is established is a new one refused. The per-address cap always refuses.
final class OpenConnections: Sendable {
    private struct Entry {
        let channel: any Channel
        /// The client's address, once known (behind a balancer that sends PROXY headers, after the header).
        var address: String?
        var established = false
    }

    private struct State {
        var open: [ObjectIdentifier: Entry] = [:]
        var perAddress: [String: Int] = [:]
        /// Connections not established, oldest first; entries that closed or were established meanwhile are skipped
        /// when met (`head` marks what was taken).
        var strangers: [ObjectIdentifier] = []
        var head = 0
    }

    private let state = Mutex(State())
    /// Connections held at once: the configured limit, within the descriptors the process may open.
    let capacity: Int
    let perAddress: Int

    init(capacity: Int, perAddress: Int) {
        self.capacity = max(1, capacity)
        self.perAddress = perAddress
    }

    /// Counts `channel` in, or returns false when it passes its address's cap or every open connection is established
    /// (the caller closes it). May close the oldest stranger to make room. `address` nil: the client's address is
    /// not known yet, and it counts for its address from `identify`.
    func admit(_ channel: any Channel, address: String?) -> Bool {
        let id = ObjectIdentifier(channel)
        var evicted: (any Channel)?
        let admitted = state.withLock { state -> Bool in
            if let address { guard state.perAddress[address, default: 0] < perAddress else { return false } }
            if state.open.count >= capacity {
                guard let oldest = Self.takeOldestStranger(&state) else { return false }
                evicted = oldest.channel
            }
            state.open[id] = Entry(channel: channel, address: address)
            if let address { state.perAddress[address, default: 0] += 1 }
            state.strangers.append(id)
            Self.compact(&state)
            return true
        }
        evicted?.close(promise: nil)
        guard admitted else { return false }
        channel.closeFuture.whenComplete { [self] _ in
            state.withLock { state in Self.remove(id, from: &state) }
        }
        return true
    }

    /// The client's address of a connection admitted without one; false when it passes that address's cap (the caller
    /// closes it).
    func identify(_ channel: any Channel, address: String) -> Bool {
        state.withLock { state in
            let id = ObjectIdentifier(channel)
            guard state.open[id] != nil, state.open[id]?.address == nil else { return true }
            guard state.perAddress[address, default: 0] < perAddress else { return false }
            state.open[id]?.address = address
            state.perAddress[address, default: 0] += 1
            return true
        }
    }

    /// The connection finished a key exchange or carries a known key: it is never evicted for a newcomer.
    func established(_ channel: any Channel) {
        state.withLock { $0.open[ObjectIdentifier(channel)]?.established = true }
    }

    var all: [any Channel] { state.withLock { $0.open.values.map(\.channel) } }
    var count: Int { state.withLock { $0.open.count } }

    private static func takeOldestStranger(_ state: inout State) -> Entry? {
        while state.head < state.strangers.count {
            let id = state.strangers[state.head]
            state.head += 1
            if let entry = state.open[id], !entry.established {
                remove(id, from: &state)
                compact(&state)
                return entry
            }
        }
        compact(&state)
        return nil
    }

    private static func remove(_ id: ObjectIdentifier, from state: inout State) {
        guard let entry = state.open.removeValue(forKey: id), let address = entry.address else { return }
        let left = state.perAddress[address, default: 1] - 1
        state.perAddress[address] = left > 0 ? left : nil
    }

    /// Drops the taken part of the queue once it is half of it, and closed or established entries when the queue
    /// outgrows the open connections (amortized O(1) per connection).
    private static func compact(_ state: inout State) {
        if state.head > 64, state.head * 2 > state.strangers.count {
            state.strangers.removeFirst(state.head)
            state.head = 0
        }
        if state.strangers.count - state.head > 2 * state.open.count + 64 {
            state.strangers = state.strangers[state.head...].filter { state.open[$0].map { !$0.established } ?? false }
            state.head = 0
        }
    }
}

/// The process's limit on open descriptors (`RLIMIT_NOFILE`), which bounds the connections a server can hold.
public enum DescriptorLimit {
    /// Descriptors kept for what is not a client connection: the database and its journal, the key files, the
    /// listening sockets, a PostgreSQL pool, the metrics endpoint, logs.
    public static let reserved = 256

    /// Raises the soft limit to the hard one (the common default soft limit, 1,024, is held by a thousand idle
    /// sockets) and returns the soft limit now in force; nil when it cannot be read.
    @discardableResult
    public static func raiseToHard() -> Int? {
        #if os(Linux)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        // An unlimited hard limit (RLIM_INFINITY) is not a value setrlimit takes for descriptors: Linux's usual ceiling instead.
        let target = limit.rlim_max == rlim_t.max ? min(limit.rlim_max, 1 << 20) : limit.rlim_max
        if limit.rlim_cur < target {
            var raised = limit
            raised.rlim_cur = target
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
    }

    /// Connections a server may hold: `configured`, within the descriptors left once `reserved` are set aside.
    public static func connectionCapacity(configured: Int) -> Int {
        guard let descriptors = raiseToHard() else { return configured }
        return max(1, min(configured, descriptors - reserved))
    }
}
