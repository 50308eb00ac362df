import ArgumentParser
import Foundation
import Logging
import MTProto
import NIOCore
import SyncServer
import SyncHarness
import Synchronization
import TL

/// `synccore bench server`: the reference server over real loopback TCP with real clients (SyncTesting's), on an
/// embedded SQLite store with synchronous = FULL.
/// - `server.send`: 8 senders, each keeping `window` sends in flight, to 8 recipients who are online; counted
///   when acknowledged (committed), and every push is awaited before the clock stops.
/// - `server.difference`: one user's 100,000 missed updates fetched by `getDifference` pages of 1,000.
/// - `server.history_page` / `server.history_deep_page`: one history page's CPU from the top and deep (`HistoryCostBenchmark`).
/// - `server.session_rss`: resident memory a separate server process gains per idle, logged-in session, over
///   10,000 sessions (one auth key, as one device's many connections would share it).
struct ServerBenchmark {
    var seconds: Double
    var sessions = 10_000
    static let senders = 8
    static let window = 64
    static let missedUpdates = 100_000

    enum Figure: String, CaseIterable, ExpressibleByArgument {
        case send, store, difference, history, session_rss
    }

    func run(only figures: [Figure] = Figure.allCases) async throws -> [BenchFigure] {
        var results: [BenchFigure] = []
        for figure in figures {
            switch figure {
            case .send:
                let (send, pushed, cpu) = try await sendRate()
                results.append(BenchFigure(bench: "server.send", value: send, unit: "msg/s", target: 20_000,
                    note: "\(Self.senders) senders × \(Self.window) in flight, recipients online, \(pushed) messages pushed, "
                        + "\(Int(cpu)) µs CPU per message (server and clients)"))
            case .store:
                let (rate, cpu) = try await storeRate()
                results.append(BenchFigure(bench: "server.store_send", value: rate, unit: "msg/s",
                    note: "storage share of a send: one write per message, \(Self.senders * Self.window) in flight, "
                        + "\(Int(cpu)) µs CPU per message"))
            case .difference:
                results.append(BenchFigure(bench: "server.difference", value: try await differenceRate(), unit: "updates/s",
                    target: 200_000, note: "\(Self.missedUpdates) missed updates, pages of 1,000, median of 3"))
            case .history:
                results += try await HistoryCostBenchmark().run()
            case .session_rss:
                results.append(BenchFigure(bench: "server.session_rss", value: try await sessionMemory(), unit: "KiB", target: 32,
                    higherIsBetter: false, note: "per idle logged-in session, \(sessions) sessions, separate server process"))
            }
        }
        return results
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Users 1…16 with access hash = id: senders 1…8, recipients 9…16.
    static func createUsers(in storage: any ServerStorage, count: Int) async throws {
        try await storage.write { tx in
            for id in 1...Int64(count) where try tx.user(id: id) == nil {
                try tx.insert(UserRecord(id: id, accessHash: id, phone: "1999000\(id)", firstName: "User \(id)", homeDC: 2))
            }
        }
    }

    static func startServer(directory: String, port: Int = 0) async throws -> SyncServer {
        var logger = Logger(label: "bench.server")
        logger.logLevel = .error
        return try await SyncServer.start(
            SyncServerConfiguration(port: port, dc: 2, dataDirectory: directory, loginCode: "12345", sendsPerSecond: 0), logger: logger)
    }

    /// Messages per second, messages received by pushes, and the process's CPU time per message (server and clients share it).
    private func sendRate() async throws -> (rate: Double, pushed: Int, cpuMicroseconds: Double) {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.createUsers(in: try SQLiteServerStorage(path: directory + "/server.sqlite"), count: 2 * Self.senders)
        let server = try await Self.startServer(directory: directory)
        let key = server.keys.rsaKey.publicKey
        var senders: [TestClient] = []
        var recipients: [TestClient] = []
        for index in 1...Self.senders {
            let sender = try await TestClient(port: server.port, publicKey: key)
            try await sender.login(phone: "1999000\(index)")
            senders.append(sender)
            let recipient = try await TestClient(port: server.port, publicKey: key)
            try await recipient.login(phone: "1999000\(index + Self.senders)")
            _ = try await recipient.call(API.functions.updates.GetState())   // online from here
            recipients.append(recipient)
        }
        let pushed = PushCounter()
        let drains = recipients.map { recipient in
            let updates = recipient.connection.updates
            return Task { for await push in updates { pushed.count.add(Self.messages(in: push), ordering: .relaxed) } }
        }
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = ProcessCPU.seconds()
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, sender) in senders.enumerated() {
                let peer = API.InputPeer.inputPeerUser(.init(userId: Int64(index + 1 + Self.senders), accessHash: Int64(index + 1 + Self.senders)))
                group.addTask { try await Self.sendUntil(deadline, from: sender, to: peer, seed: UInt64(index), clock: clock) }
            }
            return try await group.reduce(0, +)
        }
        // Persisted and pushed: wait (bounded) until every acknowledged message reached its online recipient.
        while pushed.count.load(ordering: .relaxed) < acknowledged, clock.now - start < .seconds(seconds + 30) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let elapsed = (clock.now - start).seconds
        let cpu = ProcessCPU.seconds() - cpuStart
        for client in senders + recipients { await client.close() }
        for drain in drains { drain.cancel() }
        try await server.stop()
        return (Double(acknowledged) / elapsed, pushed.count.load(ordering: .relaxed), cpu * 1e6 / Double(max(acknowledged, 1)))
    }

    /// New messages a push carries: one for a short form, one per update of an `updatesCombined` (the server merges
    /// what piles up for a session during a write; these recipients receive nothing but new messages). The count is
    /// read from the vector header (`updatesCombined#725b04c3 updates:Vector<Update> …`) so that counting does not
    /// cost the harness a full decode of every push.
    private static func messages(in push: [UInt8]) -> Int {
        var reader = TLReader(push)
        guard (try? reader.readUInt32()) == API.Updates.UpdatesCombined.constructorID,
              (try? reader.readUInt32()) == TLBuiltinID.vector, let count = try? reader.readInt32()
        else { return 1 }
        return Int(count)
    }

    /// Keeps `window` sends in flight until the deadline; returns how many were acknowledged (answered with
    /// `updateShortSentMessage`). The sender runs on its connection's event loop, chaining each answer to the next
    /// send, so the harness spends no Swift task per message of the CPU it shares with the server.
    private static func sendUntil(_ deadline: ContinuousClock.Instant, from sender: TestClient, to peer: API.InputPeer,
                                  seed: UInt64, clock: ContinuousClock) async throws -> Int {
        let connection = sender.connection
        let done = connection.eventLoop.makePromise(of: Int.self)
        connection.eventLoop.execute {
            let state = NIOLoopBound(PipelinedSends(seed: seed), eventLoop: connection.eventLoop)
            @Sendable func launch() {
                let sends = state.value
                sends.sent += 1
                sends.inFlight += 1
                let body = API.functions.messages.SendMessage(peer: peer, message: "bench \(sends.sent)",
                                                              randomId: Int64(bitPattern: sends.random.next() >> 1)).serialized()
                connection.callFuture(body).whenComplete { result in
                    let sends = state.value   // completed on the connection's event loop
                    sends.inFlight -= 1
                    switch result {
                    case let .success(answer) where (try? TLReader(answer).peekUInt32()) == API.Updates.UpdateShortSentMessage.constructorID:
                        sends.acknowledged += 1
                        if clock.now < deadline { launch() }
                    case .success:
                        sends.failure = BenchError.mismatch("a send was not answered with updateShortSentMessage")
                    case let .failure(error):
                        sends.failure = error
                    }
                    guard sends.inFlight == 0 else { return }
                    if let failure = sends.failure { done.fail(failure) } else { done.succeed(sends.acknowledged) }
                }
            }
            for _ in 0..<window { launch() }
        }
        return try await done.futureResult.get()
    }

    /// Private sends straight into storage (no network): messages per second and CPU µs per message.
    private func storeRate() async throws -> (rate: Double, cpuMicroseconds: Double) {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try SQLiteServerStorage(path: directory + "/server.sqlite")
        try await Self.createUsers(in: storage, count: 2)
        let count = Int(seconds * 20_000)
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = ProcessCPU.seconds()
        try await BulkSeeding.concurrentPrivateMessages(in: storage, from: 1, to: 2, count: count,
                                                        inFlight: Self.senders * Self.window, date: Int32(Date().timeIntervalSince1970))
        let elapsed = (clock.now - start).seconds
        return (Double(count) / elapsed, (ProcessCPU.seconds() - cpuStart) * 1e6 / Double(count))
    }

    private func differenceRate() async throws -> Double {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try SQLiteServerStorage(path: directory + "/server.sqlite")
        try await Self.createUsers(in: storage, count: 2)
        try await BulkSeeding.privateMessages(in: storage, from: 1, to: 2, count: Self.missedUpdates,
                                              date: Int32(Date().timeIntervalSince1970))
        let server = try await Self.startServer(directory: directory)
        let client = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey)
        try await client.login(phone: "19990002")
        var rates: [Double] = []
        for _ in 0..<3 {
            let clock = ContinuousClock()
            let start = clock.now
            var pts: Int32 = 0
            var received = 0
            while true {
                let page = try await client.connection.call(API.functions.updates.GetDifference(pts: pts, date: 0, qts: 0))
                if case let .differenceSlice(slice) = page, case let .state(state) = slice.intermediateState {
                    received += slice.newMessages.count + slice.otherUpdates.count
                    pts = state.pts
                } else if case let .difference(final) = page {
                    received += final.newMessages.count + final.otherUpdates.count
                    break
                } else {
                    throw BenchError.mismatch("getDifference answered \(page.constructorName)")
                }
            }
            guard received == Self.missedUpdates else { throw BenchError.mismatch("received \(received) updates") }
            rates.append(Double(received) / (clock.now - start).seconds)
        }
        await client.close()
        try await server.stop()
        return rates.sorted()[1]
    }
}

/// Pushes received by the recipients (shared by their drain tasks).
private final class PushCounter: Sendable {
    let count = Atomic<Int>(0)
}

/// User plus system CPU time of this process so far: a steadier figure than wall-clock rates on a shared 2-core VM.
enum ProcessCPU {
    static func seconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        let who = RUSAGE_SELF.rawValue
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// One bench sender's counters, touched only on its connection's event loop.
private final class PipelinedSends {
    var sent = 0
    var inFlight = 0
    var acknowledged = 0
    var failure: (any Error)?
    var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }
}
