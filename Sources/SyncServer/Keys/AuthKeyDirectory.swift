import Logging
import MTProto
import MTProtoNIO
import Synchronization

/// One data center's auth keys: in the storage, with the keys this process used lately in memory.
///
/// A connection's first encrypted frame names its key; a key not in memory is read from the database
/// (`load(id:)`, off the event loop) before the frame is handled — it may have been made by another process a moment
/// ago. Ids that are not there are remembered for a while (`misses`): a client that retries a dead key, or a peer
/// that sends random ids, costs one read per id, not one per connection. Both memories are bounded: two generations
/// each, the older dropped when the newer fills (an approximate LRU with no per-hit bookkeeping), and unknown ids also
/// age out after `missLifetime` seconds.
final class AuthKeyDirectory: Sendable {
    let dc: Int32
    private let storage: any ServerStorage
    private let logger: Logger
    private let known = Mutex(Generations<StoredAuthKey>(capacity: 50_000))
    private let misses = Mutex(Generations<Double>(capacity: 20_000))
    /// Seconds an unknown id is answered from memory.
    static let missLifetime = 60.0

    init(dc: Int32, storage: any ServerStorage, logger: Logger) {
        self.dc = dc
        self.storage = storage
        self.logger = logger
    }

    /// The key if this process has it in memory (what a connection's sans-I/O core looks up).
    func cached(id: UInt64) -> StoredAuthKey? {
        known.withLock { $0.value(for: id) }
    }

    /// Looks the key up in the database unless memory already answers; `now` is monotonic seconds.
    func load(id: UInt64, now: Double) async -> AuthKeyLookup {
        if let key = cached(id: id) { return .found(key) }
        if let missed = misses.withLock({ $0.value(for: id) }), now - missed < Self.missLifetime { return .unknown }
        do {
            let stored = try await storage.readLatest { [dc] tx in try tx.authKey(dc: dc, id: id) }
            guard let stored else {
                misses.withLock { $0.insert(now, for: id) }
                return .unknown
            }
            known.withLock { $0.insert(stored, for: id) }
            return .found(stored)
        } catch {
            logger.warning("cannot read an auth key", metadata: ["auth_key_id": "\(String(id, radix: 16))", "error": "\(error)"])
            return .unavailable
        }
    }

    /// Stores a new key; returns once it is committed (the exchange's `dh_gen_ok` follows).
    func store(_ key: StoredAuthKey) async throws {
        try await storage.write { [dc] tx in try tx.insert(key, dc: dc) }
        known.withLock { $0.insert(key, for: key.authKey.id) }
    }

    func count() async throws -> Int {
        try await storage.readLatest { [dc] tx in try tx.authKeyCount(dc: dc) }
    }
}

/// A bounded map kept as two generations: lookups read the newer, then the older (moving a hit to the newer); an
/// insert into a full newer generation drops the older and starts a new one. Holds between `capacity` and twice it.
struct Generations<Value> {
    let capacity: Int
    private var newer: [UInt64: Value] = [:]
    private var older: [UInt64: Value] = [:]

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { newer.count + older.count }

    mutating func value(for key: UInt64) -> Value? {
        if let value = newer[key] { return value }
        guard let value = older.removeValue(forKey: key) else { return nil }
        insert(value, for: key)
        return value
    }

    mutating func insert(_ value: Value, for key: UInt64) {
        if newer[key] == nil, newer.count >= capacity {
            older = newer
            newer = [:]
        }
        older[key] = nil
        newer[key] = value
    }
}
