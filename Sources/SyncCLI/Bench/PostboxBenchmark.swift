import Foundation
import GRDB
import MTProto
import Postbox
import SyncHarness
import Synchronization

/// `synccore bench postbox`: the store's write paths against the raw GRDB insert rate measured in the same run,
/// and what live views on *other* peers cost a commit (they should cost nothing: the tracker only visits views
/// whose keys a commit touched).
struct PostboxBenchmark {
    static let bulkMessages = 100_000
    static let batch = 1_000
    static let commits = 2_000
    static let bulkRuns = 3

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    static func spread(_ values: [Double]) -> String {
        "runs \(Int(values.min() ?? 0))–\(Int(values.max() ?? 0))"
    }

    func run() async throws -> [BenchFigure] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // Alternating runs so both rates see the same machine; the medians are reported (this VM's speed drifts by
        // ±20% between seconds, which a single run would report as a change).
        let batches = Self.bulkBatches()
        var bulkRates: [Double] = []
        var rawRates: [Double] = []
        for run in 0..<Self.bulkRuns {
            bulkRates.append(try await bulkApply(path: directory + "/bulk-\(run).sqlite", batches: batches))
            rawRates.append(try rawInsert(path: directory + "/raw-\(run).sqlite", batches: batches))
        }
        let bulk = Self.median(bulkRates)
        let raw = Self.median(rawRates)
        var figures = [
            BenchFigure(bench: "postbox.bulk_apply", value: bulk, unit: "msg/s", target: 150_000,
                        note: "median of \(Self.bulkRuns); \(Self.spread(bulkRates))"),
            BenchFigure(bench: "postbox.grdb_insert", value: raw, unit: "rows/s", target: nil,
                        note: "median of \(Self.bulkRuns); \(Self.spread(rawRates)); messages table without Postbox's two indexes"),
        ]
        var rates: [Int: Double] = [:]
        for views in [0, 100, 1_000, 10_000] {
            rates[views] = try await commitsWithViews(views, path: directory + "/views-\(views).sqlite")
            figures.append(BenchFigure(bench: "postbox.commits_views_\(views)", value: rates[views] ?? 0, unit: "commits/s", target: nil))
        }
        figures.append(BenchFigure(bench: "postbox.views_ratio", value: (rates[10_000] ?? 0) / max(rates[0] ?? 1, 1), unit: "ratio",
                                   target: 0.5, note: "10,000 views / 0 views"))
        let (p50, p99) = try await snapshotLatency(path: directory + "/latency.sqlite")
        figures.append(BenchFigure(bench: "postbox.snapshot_p50", value: p50, unit: "ms", target: nil, higherIsBetter: false))
        figures.append(BenchFigure(bench: "postbox.snapshot_p99", value: p99, unit: "ms", target: nil, higherIsBetter: false))
        let external = try await externalCommitLatency(path: directory + "/external.sqlite")
        figures.append(BenchFigure(bench: "postbox.external_commit_p99", value: external, unit: "ms", target: 100, higherIsBetter: false,
                                   note: "another OS process commits; a view here shows it"))
        return figures
    }

    /// Another process (this executable, `debug postbox-stamp-writer`) commits stamped transactions; this process
    /// watches with a cursor view and records how long each stamp takes to reach it. Returns the p99 in ms.
    private func externalCommitLatency(path: String) async throws -> Double {
        let postbox = try Postbox.open(at: path)
        postbox.startWatchingForExternalCommits(every: .milliseconds(10), waitingWith: SyncEnvironment.live.sleep)
        var samples: [Double] = []
        var updates = postbox.view(CursorView()).makeAsyncIterator()
        _ = try await updates.next()
        let writer = try await ChildProcess.start(URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path,
                                                  ["debug", "postbox-stamp-writer", "--path", path, "--count", "200"])
        while let update = try await updates.next() {
            guard let bytes = update.snapshot else { continue }
            let stamp = CrashStream.value(bytes)
            if stamp < 0 { break }
            samples.append((Date().timeIntervalSince1970 * 1e9 - Double(stamp)) / 1e6)
        }
        _ = await writer.exit()
        guard !samples.isEmpty else { return .infinity }
        samples.sort()
        return samples[min(samples.count - 1, samples.count * 99 / 100)]
    }

    static func message(peer: PeerID, id: Int32) -> Message {
        Message(id: MessageID(peer: peer, namespace: 0, id: id), timestamp: 1_700_000_000 + id, flags: [.incoming], tags: [],
                author: peer, text: "benchmark message number \(id) with some text of a realistic length", attributes: [1, 2, 3])
    }

    /// The bulk input: 100,000 messages over 10 peers, in batches of 1,000. Built before either clock starts, so
    /// both rates measure the store and not the formatting of message texts.
    static func bulkBatches() -> [[Message]] {
        (0..<(bulkMessages / batch)).map { batchIndex in
            (0..<batch).map { index -> Message in
                let n = batchIndex * batch + index
                return message(peer: PeerID(namespace: 0, id: Int64(n % 10 + 1)), id: Int32(n / 10 + 1))
            }
        }
    }

    /// The bulk input applied in transactions of 1,000.
    private func bulkApply(path: String, batches: [[Message]]) async throws -> Double {
        let postbox = try Postbox.open(at: path)
        let start = ContinuousClock.now
        for messages in batches {
            _ = try await postbox.transaction { tx in try tx.addMessages(messages) }
        }
        return Double(Self.bulkMessages) / (ContinuousClock.now - start).seconds
    }

    /// The same rows straight through one cached GRDB statement: the ceiling for the store's insert path.
    private func rawInsert(path: String, batches: [[Message]]) throws -> Double {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { try $0.execute(sql: "PRAGMA synchronous = NORMAL") }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE messages (peer INTEGER NOT NULL, namespace INTEGER NOT NULL, id INTEGER NOT NULL,
                    timestamp INTEGER NOT NULL, flags INTEGER NOT NULL, tags INTEGER NOT NULL, author INTEGER, text TEXT NOT NULL,
                    attributes BLOB NOT NULL, PRIMARY KEY (peer, namespace, id)) WITHOUT ROWID
                """)
        }
        let start = ContinuousClock.now
        for messages in batches {
            try queue.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
                for message in messages {
                    try statement.execute(arguments: [message.id.peer.rawValue, 0, message.id.id, message.timestamp,
                                                      message.flags.rawValue, 0, message.author?.rawValue, message.text,
                                                      Data(message.attributes)])
                }
            }
        }
        return Double(Self.bulkMessages) / (ContinuousClock.now - start).seconds
    }

    /// One-message commits to one peer while `count` history views are open on other peers.
    private func commitsWithViews(_ count: Int, path: String) async throws -> Double {
        let postbox = try Postbox.open(at: path)
        var tasks: [Task<Void, Never>] = []
        let opened = Counter()
        for index in 0..<count {
            let view = MessageHistoryView(peer: PeerID(namespace: 0, id: Int64(10_000 + index)), namespace: 0, count: 20)
            tasks.append(Task {
                do {
                    for try await _ in postbox.view(view) { opened.increment() }
                } catch {}
            })
        }
        while opened.value < count { try await Task.sleep(for: .milliseconds(5)) }
        let peer = PeerID(namespace: 0, id: 1)
        let start = ContinuousClock.now
        for id in 1...Self.commits {
            _ = try await postbox.transaction { tx in try tx.addMessages([Self.message(peer: peer, id: Int32(id))]) }
        }
        let rate = Double(Self.commits) / (ContinuousClock.now - start).seconds
        for task in tasks { task.cancel() }
        return rate
    }

    /// From the start of a one-message commit to the view's consumer holding the new snapshot.
    private func snapshotLatency(path: String) async throws -> (p50: Double, p99: Double) {
        let postbox = try Postbox.open(at: path)
        let peer = PeerID(namespace: 0, id: 1)
        var updates = postbox.view(MessageHistoryView(peer: peer, namespace: 0, count: 20)).makeAsyncIterator()
        _ = try await updates.next()
        var samples: [Double] = []
        for id in 1...1_000 {
            let start = ContinuousClock.now
            _ = try await postbox.transaction { tx in try tx.addMessages([Self.message(peer: peer, id: Int32(id))]) }
            _ = try await updates.next()
            samples.append((ContinuousClock.now - start).seconds * 1000)
        }
        samples.sort()
        return (samples[samples.count / 2], samples[samples.count * 99 / 100])
    }
}

/// A counter shared with the tasks that consume views.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

