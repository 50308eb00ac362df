import Foundation
import GRDB
import Synchronization

/// What a new peer starts with: a hole over all of history in each namespace (and tag space), so "unknown" is
/// explicit rather than an absence (core idea of Telegram's Postbox; see the storage anchors).
public struct SeedConfiguration: Sendable {
    /// Message namespaces that start as one big hole for every new peer (e.g. the cloud namespace).
    public var holeNamespaces: [Int32]
    /// Tags that get their own hole space (besides "everywhere").
    public var holeTags: [MessageTags]
    /// The namespace whose messages count toward unread counts and the chat list's top message.
    public var chatListNamespace: Int32

    /// A seed configuration: which namespaces start as one hole, which tags get their own hole space, and which
    /// namespace feeds the chat list.
    public init(holeNamespaces: [Int32] = [0], holeTags: [MessageTags] = [], chatListNamespace: Int32 = 0) {
        self.holeNamespaces = holeNamespaces
        self.holeTags = holeTags
        self.chatListNamespace = chatListNamespace
    }

    /// 1…Int32.max − 1: every id a message can have.
    public static let allIDs: ClosedRange<Int32> = 1...(Int32.max - 1)
}

/// The client's store: one SQLite file in WAL mode, one serial writer; every access is a transaction that
/// produces a typed change record.
public final class Postbox: Sendable {
    /// The database file.
    public let path: String
    /// How new peers' histories start (as holes to fill).
    public let seed: SeedConfiguration
    let database: DatabaseQueue
    let tracker = ViewTracker()
    /// The transaction version this instance last saw: a different one on disk means another process committed.
    let seenVersion = VersionMark()
    private let poller = Mutex<Task<Void, Never>?>(nil)

    private init(path: String, seed: SeedConfiguration, database: DatabaseQueue) {
        self.path = path
        self.seed = seed
        self.database = database
    }

    deinit {
        poller.withLock { $0?.cancel() }
    }

    /// Checks for commits by other processes every `interval` (and at the start of every transaction, always), waiting
    /// with `wait`: the caller's clock (the sync engine's environment; a simulation's own), since Postbox reads none.
    /// A check reads the store only when the write-ahead log's size, time or inode changed since the last one (every
    /// commit by any process writes to it), and at least every `fullCheckEvery` intervals in case two commits left the
    /// same signature: an idle app costs a `stat` per interval, not a query. With `changes` (`DirectoryChanges` on the
    /// store's directory), each change is checked at once as well, so `interval` can be long: idle, nothing runs.
    public func startWatchingForExternalCommits(every interval: Duration = .milliseconds(25), fullCheckEvery: Int = 40,
                                                changes: AsyncStream<Void>? = nil,
                                                waitingWith wait: @escaping @Sendable (Duration) async throws -> Void) {
        let database = self.database
        let tracker = self.tracker
        let seed = self.seed
        let seenVersion = self.seenVersion
        let log = path + "-wal"
        let task = Task.detached {
            let (checks, trigger) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await wait(interval)
                        trigger.yield()
                    }
                }
                if let changes {
                    group.addTask { for await _ in changes { trigger.yield() } }
                }
                var (last, sinceFull): (FileSignature?, Int) = (nil, 0)
                for await _ in checks {
                    if Task.isCancelled { break }
                    let signature = FileSignature(path: log)
                    sinceFull += 1
                    guard signature == nil || signature != last || sinceFull >= fullCheckEvery else { continue }
                    (last, sinceFull) = (signature, 0)
                    _ = try? await database.writeWithoutTransaction { db in
                        Self.reloadIfChangedElsewhere(db: db, seed: seed, tracker: tracker, seenVersion: seenVersion)
                    }
                }
                group.cancelAll()
            }
        }
        poller.withLock { $0?.cancel(); $0 = task }
    }

    /// Reloads every open view if the stored transaction version is not the one this instance last saw.
    static func reloadIfChangedElsewhere(db: Database, seed: SeedConfiguration, tracker: ViewTracker, seenVersion: VersionMark) {
        let transaction = Transaction(db: db, seed: seed)
        let version = transaction.transactionVersion
        let changed = seenVersion.value.withLock { seen -> Bool in
            defer { seen = version }
            return seen != version
        }
        if changed {
            tracker.reloadAll(transaction: transaction)
            seenVersion.announceExternalCommit()
        }
    }

    /// The peers whose history an open view shows (a sync engine fetches their channels' differences after a
    /// reconnect, as the app is looking at them).
    public var peersWithOpenHistoryViews: Set<PeerID> { tracker.viewedHistoryPeers }

    /// A signal each time a commit by another process is noticed (after the views reloaded): how a process that
    /// syncs learns that another one on the same store queued work for it (an operation-log entry).
    public func externalCommits() -> AsyncStream<Void> {
        seenVersion.subscribe()
    }

    /// Opens (or creates) the store at `path`.
    public static func open(at path: String, seed: SeedConfiguration = SeedConfiguration()) throws(PostboxError) -> Postbox {
        try open(at: path, seed: seed, maximumPageCount: nil)
    }

    /// `maximumPageCount` caps the file (SQLite then fails writes with SQLITE_FULL, as on a full disk): for tests.
    static func open(at path: String, seed: SeedConfiguration, maximumPageCount: Int?) throws(PostboxError) -> Postbox {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if let maximumPageCount { try db.execute(sql: "PRAGMA max_page_count = \(maximumPageCount)") }
        }
        do {
            let database = try DatabaseQueue(path: path, configuration: configuration)
            let transactionVersion = try database.write { db in
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                if version > Schema.version { throw PostboxError.newerSchema(found: version, supported: Schema.version) }
                if version == 0 { try Schema.create(db) } else if version < Schema.version { try Schema.migrate(db, from: version) }
                let transaction = Transaction(db: db, seed: seed)
                try transaction.applySeed(isNewStore: version == 0)
                return transaction.transactionVersion
            }
            let postbox = Postbox(path: path, seed: seed, database: database)
            postbox.seenVersion.value.withLock { $0 = transactionVersion }
            return postbox
        } catch let error as PostboxError {
            throw error
        } catch let error as DatabaseError {
            throw mapOpenError(error, path: path)
        } catch {
            throw .openFailed(path: path, reason: "\(error)")
        }
    }

    static func mapOpenError(_ error: DatabaseError, path: String) -> PostboxError {
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .corruptDatabase(path: path, reason: error.message ?? "\(error)")
        case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY: return .writeFailed(reason: error.message ?? "\(error)")
        default: return .openFailed(path: path, reason: error.message ?? "\(error)")
        }
    }

    /// Runs `body` in one SQLite transaction on the store's writer: all or nothing. A throw rolls everything back
    /// and records nothing. Returns the body's result and the change record of the commit.
    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (Transaction) throws -> T
    ) async throws -> (result: T, changes: ChangeRecord) {
        let seed = self.seed
        let tracker = self.tracker
        let seenVersion = self.seenVersion
        do {
            return try await database.writeWithoutTransaction { db in
                Self.reloadIfChangedElsewhere(db: db, seed: seed, tracker: tracker, seenVersion: seenVersion)
                var outcome: (result: T, changes: ChangeRecord, version: Int64?)?
                try db.inTransaction(.immediate) {
                    let transaction = Transaction(db: db, seed: seed)
                    let result = try body(transaction)
                    let version = try transaction.finish()
                    outcome = (result, transaction.changes, version)
                    return .commit
                }
                guard let outcome else { throw PostboxError.writeFailed(reason: "transaction produced no result") }
                // Committed: views see the new state before any later transaction runs (same serial writer).
                if let version = outcome.version {
                    seenVersion.value.withLock { $0 = version }
                    if outcome.changes.everythingChanged {
                        tracker.reloadAll(transaction: Transaction(db: db, seed: seed))
                    } else {
                        tracker.replay(outcome.changes, transaction: Transaction(db: db, seed: seed))
                    }
                }
                return (outcome.result, outcome.changes)
            }
        } catch let error as DatabaseError {
            throw Self.mapOpenError(error, path: path)
        }
    }

    /// A read-only look at the store (runs on the writer too: there is one connection).
    public func read<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        try await transaction(body).result
    }
}

/// The transaction version a Postbox instance last saw, shared with its poller, and who wants to hear of commits
/// by other processes.
final class VersionMark: Sendable {
    let value = Mutex<Int64>(0)
    private let listeners = Mutex<(next: Int, all: [Int: AsyncStream<Void>.Continuation])>((0, [:]))

    func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = listeners.withLock { state -> Int in
            state.next += 1
            state.all[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.all.removeValue(forKey: id) } }
        return stream
    }

    func announceExternalCommit() {
        for continuation in listeners.withLock({ Array($0.all.values) }) { continuation.yield() }
    }
}
