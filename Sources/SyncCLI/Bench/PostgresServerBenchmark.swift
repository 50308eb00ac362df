import Foundation
import Logging
import MTProto
import MTProtoNIO
import SyncServer
import SyncHarness
import Synchronization
import TL

/// `synccore bench server --postgres URL`: two `synccore server` processes (release build: this executable) on one
/// fresh PostgreSQL database made in the cluster the URL names, as one data center. Eight senders are connected to
/// the first process and their eight recipients to the second, so every message crosses processes through the
/// commit announcements and the recipient's process reads it from the log. The clients' tasks run on their
/// connections' event loops, as the server's do, so the figures are the servers' more than the bench's scheduling.
/// - `pg.send`: messages per second persisted and pushed across processes, `window` in flight per sender; the clock
///   stops when the last acknowledged message has reached its recipient.
/// - `pg.cross_p50` / `pg.cross_p99`: from the send call to the push at the recipient, one message in flight per
///   sender (no send waits behind its own sender's window; on a 2-core machine that also runs PostgreSQL the phase
///   is still nearly CPU-bound, docs/SCALING.md).
struct PostgresServerBenchmark {
    var url: String
    var seconds: Double
    static let senders = 8
    static let window = 32
    /// The benchmark's scratch databases, dropped when it ends.
    static let databasePrefix = "synccore_bench_"

    func run() async throws -> [BenchFigure] {
        let database = try await PostgresMaintenance.createDatabase(prefix: Self.databasePrefix, in: url)
        let data = try ServerBenchmark.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        var logger = Logger(label: "bench.postgres")
        logger.logLevel = .error
        let storage = try await PostgresServerStorage(url: database, logger: logger)
        try await ServerBenchmark.createUsers(in: storage, count: 2 * Self.senders)
        let rsaKey = try RSAPrivateKey.generate(bits: 2048)   // both processes read it from the database
        try await storage.write { tx in try tx.insertRSAKeyIfAbsent(rsaKey) }
        await storage.close()
        let arguments = ["--postgres", database, "--data", data, "--login-code", "12345", "--send-rate", "0", "--log-level", "error"]
        let first = try await ServerProcess(executable: ServerProcess.executable(), arguments: arguments)
        let second = try await ServerProcess(executable: ServerProcess.executable(), arguments: arguments)
        do {
            let figures = try await measure(first: first.port, second: second.port, key: rsaKey.publicKey)
            await first.stop()
            await second.stop()
            await PostgresMaintenance.dropDatabase(database, prefix: Self.databasePrefix, in: url)
            return figures
        } catch {
            await first.kill()
            await second.kill()
            await PostgresMaintenance.dropDatabase(database, prefix: Self.databasePrefix, in: url)
            throw error
        }
    }

    private func measure(first: Int, second: Int, key: RSAPublicKey) async throws -> [BenchFigure] {
        var senders: [TestClient] = []
        var recipients: [TestClient] = []
        for index in 1...Self.senders {
            let sender = try await TestClient(port: first, publicKey: key)
            try await sender.login(phone: "1999000\(index)")
            senders.append(sender)
            let recipient = try await TestClient(port: second, publicKey: key)
            try await recipient.login(phone: "1999000\(index + Self.senders)")
            _ = try await recipient.call(API.functions.updates.GetState())
            recipients.append(recipient)
        }
        let arrivals = Arrivals()
        let drains = recipients.map { recipient in
            let updates = recipient.connection.updates
            return recipient.connection.eventLoop.startTask { for await push in updates { arrivals.received(push) } }
        }
        defer { for drain in drains { drain.cancel() } }

        let (rate, sent) = try await sustained(senders, arrivals: arrivals, window: Self.window, seconds: seconds)
        arrivals.reset()
        _ = try await sustained(senders, arrivals: arrivals, window: 1, seconds: max(1, seconds / 2))
        let latencies = arrivals.latencies.sorted()
        let acks = arrivals.acks.sorted()
        for client in senders + recipients { await client.close() }
        guard !latencies.isEmpty else { throw BenchError.mismatch("no message crossed processes") }
        let p50 = Self.percentile(50, of: latencies) * 1_000
        let p99 = Self.percentile(99, of: latencies) * 1_000
        return [
            BenchFigure(bench: "pg.send", value: rate, unit: "msg/s", target: 10_000,
                        note: "2 processes, \(Self.senders) senders × \(Self.window) in flight on one, recipients on the other, \(sent) messages"),
            BenchFigure(bench: "pg.cross_p50", value: p50, unit: "ms", higherIsBetter: false,
                        note: "send call to push on the other process, 1 in flight per sender, \(latencies.count) messages"),
            BenchFigure(bench: "pg.cross_p99", value: p99, unit: "ms", target: 5, higherIsBetter: false),
            BenchFigure(bench: "pg.ack_p50", value: Self.percentile(50, of: acks) * 1_000, unit: "ms", higherIsBetter: false,
                        note: "send call to its answer (committed), 1 in flight per sender"),
            BenchFigure(bench: "pg.ack_p99", value: Self.percentile(99, of: acks) * 1_000, unit: "ms", higherIsBetter: false),
        ]
    }

    /// The `percent`th percentile of sorted values (0 when there are none).
    static func percentile(_ percent: Int, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, sorted.count * percent / 100)]
    }

    /// Sends until the deadline with `window` in flight per sender, then waits (bounded) until every acknowledged
    /// message was pushed; returns messages per second over the whole span and the count.
    private func sustained(_ senders: [TestClient], arrivals: Arrivals, window: Int, seconds: Double) async throws -> (Double, Int) {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .milliseconds(Int(seconds * 1_000))
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, sender) in senders.enumerated() {
                let recipient = Int64(index + 1 + Self.senders)
                let peer = API.InputPeer.inputPeerUser(.init(userId: recipient, accessHash: recipient))
                for lane in 0..<window {
                    group.addTask {
                        try await sender.connection.eventLoop.run {
                            var count = 0
                            while clock.now < deadline {
                                let text = "bench \(index) \(lane) \(count)"
                                arrivals.sending(text)
                                let answer = try await sender.call(API.functions.messages.SendMessage(peer: peer, message: text,
                                                                                                       randomId: .random(in: 1...Int64.max)))
                                arrivals.acknowledged(text)
                                guard case .updateShortSentMessage = answer else { throw BenchError.mismatch("send answered \(answer)") }
                                count += 1
                            }
                            return count
                        }
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        while arrivals.count < acknowledged, clock.now - start < .seconds(seconds + 30) {
            try await Task.sleep(for: .milliseconds(2))
        }
        guard arrivals.count >= acknowledged else {
            throw BenchError.mismatch("\(acknowledged - arrivals.count) of \(acknowledged) messages were not pushed across processes")
        }
        return (Double(acknowledged) / (clock.now - start).seconds, acknowledged)
    }
}

/// When each bench message was sent and when it reached its recipient.
private final class Arrivals: Sendable {
    private let state = Mutex<(sentAt: [String: ContinuousClock.Instant], latencies: [Double], count: Int, acks: [Double])>(([:], [], 0, []))

    func acknowledged(_ text: String) {
        let now = ContinuousClock.now
        state.withLock { state in
            if let sent = state.sentAt[text] { state.acks.append((now - sent).seconds) }
        }
    }
    var acks: [Double] { state.withLock { $0.acks } }

    func sending(_ text: String) {
        let now = ContinuousClock.now
        state.withLock { $0.sentAt[text] = now }
    }

    func received(_ push: [UInt8]) {
        let now = ContinuousClock.now
        guard let updates = try? API.Updates.deserialize(push) else { return }
        let texts = PushInbox.newMessages(in: updates).map(\.text)
        state.withLock { state in
            for text in texts {
                state.count += 1
                if let sent = state.sentAt.removeValue(forKey: text) { state.latencies.append((now - sent).seconds) }
            }
        }
    }

    var count: Int { state.withLock { $0.count } }
    var latencies: [Double] { state.withLock { $0.latencies } }
    func reset() { state.withLock { $0 = ([:], [], 0, []) } }
}
