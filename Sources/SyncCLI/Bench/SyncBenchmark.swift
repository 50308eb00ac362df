import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOPosix
import Postbox
import SyncEngine
import SyncServer
import SyncHarness
import TL

/// `synccore bench sync`: the client core end to end against an in-process server over loopback, each account with
/// its own Postbox file.
/// * `sync.live_p50` / `sync.live_p99`: from the start of Alice's `messages.sendMessage` to the snapshot of Bob's
///   live history view that shows the message (push, sequencer, one Postbox transaction, view replay).
/// * `sync.catchup_100k`: Bob was offline while Alice sent 100,000 messages; from his restart (store and keys on disk)
///   to his committed state equal to the server's, through getDifference slices.
/// * `sync.apply`: the catch-up's messages per second.
/// * `sync.resume_p50` / `sync.resume_p99`: an idle account after a server restart (`SyncResumeBenchmark`).
struct SyncBenchmark {
    var liveMessages = 1_000
    var missedMessages = 100_000
    var restarts = 20

    struct Account {
        let directory: String
        let network: ConnectionManager
        let postbox: Postbox
        let user: API.User.User
    }

    /// What `--plot` draws.
    struct Samples: Sendable {
        var latencies: [Double] = []
        var catchUp: [(seconds: Double, messages: Int)] = []
    }

    func run() async throws -> (figures: [BenchFigure], samples: Samples) {
        let directory = try ServerBenchmark.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "bench.sync")
        logger.logLevel = .error
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: directory + "/server", loginCode: "12345", seedDevAccounts: true,
            differencePageSize: 1_000, sendsPerSecond: 0), logger: logger)
        do {
            var result = try await measure(server, directory: directory)
            try await server.stop()
            let resumes = try await SyncResumeBenchmark(restarts: restarts).run(directory: directory + "/resume", logger: logger).sorted()
            func percentile(_ p: Double) -> Double { resumes[min(resumes.count - 1, Int(Double(resumes.count) * p))] }
            result.figures += [
                BenchFigure(bench: "sync.resume_p50", value: percentile(0.5), unit: "s", target: 0.5, higherIsBetter: false,
                            note: "\(restarts) server restarts: accepting again → the next message in the idle recipient's store"),
                BenchFigure(bench: "sync.resume_p99", value: percentile(0.99), unit: "s", target: 1, higherIsBetter: false),
            ]
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }

    private func logIn(_ phone: String, server: SyncServer, directory: String) async throws -> Account {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = NetworkStateFile(path: directory + "/network.json")
        let network = ConnectionManager(state: NetworkState(directory: .loopback(server.ports)), file: file, initialDC: 2,
                                        publicKeys: [server.keys.rsaKey.publicKey], group: MultiThreadedEventLoopGroup.singleton)
        let user = try await network.logIn(phone: phone)
        return Account(directory: directory, network: network, postbox: try Postbox.open(at: directory + "/store.sqlite"), user: user)
    }

    private func measure(_ server: SyncServer, directory: String) async throws -> (figures: [BenchFigure], samples: Samples) {
        var samples = Samples()
        let alice = try await logIn("+15550001", server: server, directory: directory + "/alice")
        let bob = try await logIn("+15550002", server: server, directory: directory + "/bob")
        guard case let .resolvedPeer(resolved) = try await alice.network.send(API.functions.contacts.ResolveUsername(username: "bob")),
              case let .user(bobSeen)? = resolved.users.first else { throw BenchError.mismatch("bob not resolved") }
        let toBob = API.InputPeer.inputPeerUser(.init(userId: bobSeen.id, accessHash: bobSeen.accessHash ?? 0))

        // Live: one message at a time, each timed until Bob's view shows it.
        let bobAccount = try await AccountStateManager.start(postbox: bob.postbox, network: bob.network, selfID: bob.user.id)
        let chat = StoreMapping.user(alice.user.id)
        var snapshots = bob.postbox.view(MessageHistoryView(peer: chat, namespace: StoreMapping.cloudMessages, count: 4)).makeAsyncIterator()
        _ = try await snapshots.next()   // the initial snapshot
        var latencies: [Double] = [], roundTrips: [Double] = []
        let clock = ContinuousClock()
        for index in 0..<liveMessages {
            let text = "live \(index)"
            let start = clock.now
            _ = try await alice.network.send(API.functions.messages.SendMessage(peer: toBob, message: text, randomId: Int64(index + 1)))
            roundTrips.append((clock.now - start).seconds * 1000)
            while true {
                guard let update = try await snapshots.next() else { throw BenchError.mismatch("the view ended") }
                if update.snapshot.messages.last?.text == text { break }
            }
            latencies.append((clock.now - start).seconds * 1000)
        }
        await bobAccount.stop()
        await bob.network.close()

        // Catch-up: Bob offline while Alice sends, 16 calls in flight.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<16 {
                group.addTask { [missedMessages] in
                    for index in stride(from: lane, to: missedMessages, by: 16) {
                        _ = try await alice.network.send(API.functions.messages.SendMessage(
                            peer: toBob, message: "missed \(index)", randomId: Int64(10_000_000 + index)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let file = NetworkStateFile(path: bob.directory + "/network.json")
        guard let saved = try file.load() else { throw BenchError.mismatch("Bob's network state was not saved") }
        let network = ConnectionManager(state: saved, file: file, initialDC: 2, publicKeys: [server.keys.rsaKey.publicKey],
                                        group: MultiThreadedEventLoopGroup.singleton)
        let expected = try await bobPts(network)   // also opens Bob's connection: the timing starts at the account's start
        let catchUpStart = clock.now
        let restarted = try await AccountStateManager.start(postbox: bob.postbox, network: network, selfID: bob.user.id)
        let startPts = await restarted.state.pts
        samples.catchUp = [(0, 0)]
        while true {
            let pts = await restarted.state.pts
            samples.catchUp.append(((clock.now - catchUpStart).seconds, Int(pts - startPts)))
            if pts >= expected { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        let catchUp = (clock.now - catchUpStart).seconds
        let stored = try await bob.postbox.read { transaction in
            try transaction.allMessages(peer: chat, namespace: StoreMapping.cloudMessages).count
        }
        guard stored == liveMessages + missedMessages else {
            throw BenchError.mismatch("Bob stored \(stored) messages, \(liveMessages + missedMessages) expected")
        }
        await restarted.stop()
        await network.close()
        await alice.network.close()

        samples.latencies = latencies
        latencies.sort()
        roundTrips.sort()
        func percentile(_ p: Double, of values: [Double]) -> Double { values[min(values.count - 1, Int(Double(values.count) * p))] }
        func percentile(_ p: Double) -> Double { percentile(p, of: latencies) }
        return ([
            BenchFigure(bench: "sync.live_p50", value: percentile(0.5), unit: "ms", target: 0.5, higherIsBetter: false,
                        note: "\(liveMessages) sends: Alice's RPC start → Bob's history view shows it"),
            BenchFigure(bench: "sync.live_p99", value: percentile(0.99), unit: "ms", target: 2, higherIsBetter: false),
            BenchFigure(bench: "sync.send_rpc_p50", value: percentile(0.5, of: roundTrips), unit: "ms", higherIsBetter: false,
                        note: "diagnostic: Alice's sendMessage round trip alone (the server's durable commit included)"),
            BenchFigure(bench: "sync.catchup_100k", value: catchUp, unit: "s", target: 2, higherIsBetter: false,
                        note: "\(missedMessages) missed: restart → committed state equals the server's"),
            BenchFigure(bench: "sync.apply", value: Double(missedMessages) / catchUp, unit: "msg/s",
                        note: "catch-up rate: difference slices decoded, sequenced and written with the cursor"),
        ], samples)
    }

    /// Bob's pts on the server (asked over his own connection, so it is his box).
    private func bobPts(_ network: ConnectionManager) async throws -> Int32 {
        guard case let .state(state) = try await network.send(API.functions.updates.GetState()) else {
            throw BenchError.mismatch("no state")
        }
        return state.pts
    }
}
