import Synchronization

/// The SQLite backend's index of recent `random_id`s, for idempotent sends (a client that lost the answer to
/// `messages.sendMessage` sends the same `random_id` again and must get the first result).
///
/// Why in memory: a B-tree keyed by `random_id` takes each insert to a random leaf page, so every send dirtied a page
/// of its own and the WAL wrote a 4 KiB page per message — `synccore bench server` measured that single insert at a
/// third of the writer's time. The durable record is now an append-only log (`sent_log`, ordered by insertion per
/// user), and lookups go through this window of each sender's last `window` sends, loaded from the log the first time
/// a sender is seen (also after a restart). A retry is recognised among the sender's last `window` sends; clients
/// retry the few sends that were in flight when a connection dropped.
final class RecentSends: Sendable {
    /// Sends per user that a retry is recognised among.
    static let window = 512
    /// Users whose windows are kept; the cache starts over when full (windows are reloaded from the log).
    static let capacity = 4_096

    private let windows = Mutex<[Int64: SendWindow]>([:])

    func window(user: Int64) -> SendWindow? {
        windows.withLock { $0[user] }
    }

    /// Takes the windows a write batch built or changed, once that batch committed.
    func commit(_ changed: [Int64: SendWindow]) {
        guard !changed.isEmpty else { return }
        windows.withLock { windows in
            if windows.count + changed.count > Self.capacity { windows.removeAll(keepingCapacity: true) }
            windows.merge(changed) { _, new in new }
        }
    }
}

/// One sender's last `RecentSends.window` sends by `random_id`, oldest forgotten first.
struct SendWindow: Sendable {
    private(set) var records: [Int64: SentRecord] = [:]
    /// random_ids in insertion order, as a ring once full.
    private var order: [Int64] = []
    private var next = 0

    init() {}

    /// Oldest first, as the log returns them newest first reversed.
    init(oldestFirst entries: [(randomID: Int64, record: SentRecord)]) {
        for (randomID, record) in entries { add(record, randomID: randomID) }
    }

    subscript(randomID: Int64) -> SentRecord? { records[randomID] }

    mutating func add(_ record: SentRecord, randomID: Int64) {
        records[randomID] = record
        if order.count < RecentSends.window {
            order.append(randomID)
            return
        }
        let forgotten = order[next]
        if forgotten != randomID { records[forgotten] = nil }
        order[next] = randomID
        next = (next + 1) % RecentSends.window
    }
}
