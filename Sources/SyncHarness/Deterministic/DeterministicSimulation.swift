import Foundation
import Logging
import MTProto
import Postbox
import Synchronization
import SyncEngine
import SyncServer
import TL

/// The sync engine and the server under faults with nothing left to chance: the server runs in this process
/// (`LocalServer`) on a virtual clock and a seeded random source, the three users are the engine's sequencer and
/// store mapping over real Postbox files (what `AccountStateManager` runs, without its tasks), and one loop decides,
/// from the seed, every event in turn: a call, which pending push is delivered (in order or not, once, twice or
/// never), which request is answered or fails, when time moves and timers fire, a new session, an app restart, a
/// server restart. Nothing runs concurrently, so a seed gives the same run, byte for byte, every time: its trace (every
/// push, answer, applied update and state, by digest) is the proof, and a failing seed replays exactly.
///
/// Where `FaultSimulation` tests the whole product over sockets and real time (reconnects, the outbox, timeouts),
/// this one tests the update algorithm against the real server's counters under schedules no socket produces on
/// demand. The settle phase then lets every user catch up by itself; each store must equal the server's truth.
public enum DeterministicSimulation {
    /// What one run did (its trace) and found.
    public struct Run: Sendable {
        public let seed: UInt64
        public let trace: [String]
        /// Broken guarantees; empty when the run passed.
        public let violations: [String]
        /// Messages in the server's truth, summed over the three users' chats.
        public let messages: Int
    }

    /// Telegram's rules with short waits (the virtual clock makes every wait free).
    static let timing = SyncTiming(possibleGapWait: 0.5, noUpdatesTimeout: 15, retryBase: 1, retryCap: 8)

    /// Runs `seed` for `steps` steps in `directory` (created; left for the caller to remove). `tamper` removes Bob's
    /// newest stored message behind the engine's back before the checks: they must notice.
    public static func run(seed: UInt64, steps: Int = 80, directory: String, tamper: Bool = false) async throws -> Run {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var world = try await DeterministicWorld(seed: seed, directory: directory)
        for step in 0..<steps {
            try await world.step(step)
        }
        try await world.settle()
        if tamper { try await world.removeNewestStoredMessage(of: 1) }
        let (violations, messages) = try await world.verdict()
        await world.stop()
        return Run(seed: seed, trace: world.trace, violations: violations, messages: messages)
    }
}

/// The state of one deterministic run.
struct DeterministicWorld {
    private var rng: SplitMix64
    private let clock = VirtualClock(start: 1_800_000_000)
    private let configuration: SyncServerConfiguration
    private var server: LocalServer
    private var clients: [DeterministicClient] = []
    /// Alice's other device: its calls change her account; their answers are not hers to apply.
    private var otherDevice: LocalSession
    private var otherDeviceSessions = 0
    private(set) var trace: [String] = []
    /// The messages each user's chats held before the run (history a new device fills on demand, not by syncing).
    private var before: [Set<MessageID>] = []

    init(seed: UInt64, directory: String) async throws {
        rng = SplitMix64(seed: seed)
        var configuration = SyncServerConfiguration(dataDirectory: directory + "/server", loginCode: "12345", seedDevAccounts: true,
                                                    differencePageSize: Int.random(in: 2...8, using: &rng))
        let clock = self.clock
        configuration.environment = .seeded(seed, now: { clock.now }, uptime: { clock.now - clock.start })
        self.configuration = configuration
        server = try await LocalServer.start(configuration, logger: Self.quiet)
        otherDevice = try await Self.otherDevice(on: server, number: 0)
        for index in SimulationPlan.names.indices {
            clients.append(try await DeterministicClient(index: index, seed: seed, directory: directory, server: server,
                                                         timing: DeterministicSimulation.timing, clock: clock))
        }
        for client in clients {
            let truth = try await ChatsView.server(user: client.index, network: client.session)
            before.append(Set(truth.messages.values.joined().map(\.id)))
        }
        trace.append("seed \(seed): difference page \(configuration.differencePageSize)")
        for client in clients { try await client.start(now: clock.now, trace: &trace) }
    }

    private static let quiet = Logger(label: "deterministic-simulation", factory: { _ in SwiftLogNoOpLogHandler() })

    private static func otherDevice(on server: LocalServer, number: Int) async throws -> LocalSession {
        try await server.login(authKeyID: 0xD0_0100, as: SimulatedWorld.userIDs[0])
        return LocalSession(server: server, outlet: server.session(authKeyID: 0xD0_0100, sessionID: 0x100_0000 + Int64(number), pushes: { _ in }))
    }

    // MARK: steps

    mutating func step(_ index: Int) async throws {
        let user = Int.random(in: 0..<3, using: &rng)
        let other = (user + Int.random(in: 1...2, using: &rng)) % 3
        let client = clients[user]
        let now = clock.now
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<18:
            try await send(from: user, to: .user(other), index: index)
        case 18..<28:
            try await send(from: user, to: .lounge, index: index)
        case 28..<40:
            try await otherDeviceActs(index: index)
        case 40..<62:
            guard client.inbox.count > 0 else { return }
            let position = Int.random(in: 0..<client.inbox.count, using: &rng)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0:
                _ = client.inbox.take(at: position)
                trace.append("\(client.name): a push is lost")
            case 1: try await client.deliverPush(at: position, duplicate: true, now: now, trace: &trace)
            default: try await client.deliverPush(at: position, duplicate: false, now: now, trace: &trace)
            }
        case 62..<76:
            guard !client.requests.isEmpty else { return }
            let (fail, lost) = (Int.random(in: 0..<10, using: &rng) == 0, Int.random(in: 0..<10, using: &rng) == 0)
            try await client.answerRequest(fail: fail, lost: lost, server: server, now: now, trace: &trace)
        case 76..<86:
            let interval = Double(Int.random(in: 1...4_000, using: &rng)) / 1_000
            clock.advance(by: interval)
            trace.append("time +\(interval) s")
            for client in clients { try await client.fireTimers(server: server, now: clock.now, trace: &trace) }
        case 86..<90:
            try await client.connectionLost(server: server, now: now, trace: &trace)
        case 90..<93:
            let chats = ChatsView.chats(of: user)
            if client.openChat != nil && Bool.random(using: &rng) {
                client.closeChat()
                trace.append("\(client.name) closes its chat")
            } else {
                try await client.open(chats[Int.random(in: 0..<chats.count, using: &rng)], trace: &trace)
            }
            try await client.scheduleWork(now: now, trace: &trace)
        case 93..<96:
            trace.append("\(client.name): the app restarts")
            try await client.restart(server: server, now: now, trace: &trace)
        case 96..<98:
            try await restartServer()
        default:
            break
        }
    }

    /// A message from a user's own app, one in three a reply to the newest message its store holds in the chat, queued
    /// in its send log (shown at once as a local copy; the worker sends it when the schedule lets it).
    private mutating func send(from user: Int, to chat: SimulatedChat, index: Int) async throws {
        let client = clients[user]
        var replyTo: Int32?
        if Int.random(in: 0..<3, using: &rng) == 0 {
            replyTo = try await client.postbox.read { transaction in
                try transaction.latestMessages(peer: ChatsView.peer(chat), namespace: StoreMapping.cloudMessages, limit: 1).first?.id.id
            }
        }
        trace.append("\(client.name) sends to \(chat)\(replyTo.map { " replying to \($0)" } ?? "")")
        try await client.queue("d\(index) \(client.name)→\(chat)", to: chat, replyTo: replyTo, trace: &trace)
        try await client.scheduleWork(now: clock.now, trace: &trace)
    }

    /// Alice's other device sends, posts, edits, pins or unpins, or deletes her newest message: Alice learns it only
    /// as updates.
    private mutating func otherDeviceActs(index: Int) async throws {
        let chat: SimulatedChat = Bool.random(using: &rng) ? .lounge : .user(Int.random(in: 1...2, using: &rng))
        switch Int.random(in: 0..<5, using: &rng) {
        case 0, 1:
            trace.append("Alice's other device sends to \(chat)")
            _ = try? await otherDevice.ask(API.functions.messages.SendMessage(
                peer: ChatsView.input(chat), message: "d\(index) other device→\(chat)", randomId: Int64.random(in: 1...Int64.max, using: &rng)))
        case 2:
            guard let id = try await ChatsView.newestOwnMessage(in: chat, network: otherDevice)?.id else { return }
            trace.append("Alice's other device edits \(id) in \(chat)")
            _ = try? await otherDevice.ask(API.functions.messages.EditMessage(peer: ChatsView.input(chat), id: id, message: "d\(index) edited"))
        case 3:
            guard let newest = try await ChatsView.newestOwnMessage(in: chat, network: otherDevice) else { return }
            trace.append("Alice's other device \(newest.pinned ? "unpins" : "pins") \(newest.id) in \(chat)")
            _ = try? await otherDevice.ask(API.functions.messages.UpdatePinnedMessage(unpin: newest.pinned, peer: ChatsView.input(chat),
                                                                                   id: newest.id))
        default:
            guard let id = try await ChatsView.newestOwnMessage(in: chat, network: otherDevice)?.id else { return }
            trace.append("Alice's other device deletes \(id) in \(chat)")
            switch chat {
            case .user: _ = try? await otherDevice.ask(API.functions.messages.DeleteMessages(revoke: true, id: [id]))
            case .lounge:
                _ = try? await otherDevice.ask(API.functions.channels.DeleteMessages(
                    channel: .inputChannel(.init(channelId: SimulatedWorld.loungeID, accessHash: 0x5EED_1001)), id: [id]))
            }
        }
    }

    /// The server stops and starts again on the same data: every session is gone (each user gets a new one).
    private mutating func restartServer() async throws {
        trace.append("the server restarts")
        await server.stop()
        server = try await LocalServer.start(configuration, logger: Self.quiet)
        otherDeviceSessions += 1
        otherDevice = try await Self.otherDevice(on: server, number: otherDeviceSessions)
        for client in clients { try await client.connectionLost(server: server, now: clock.now, trace: &trace) }
    }

    // MARK: settle and verdict

    /// Faults stop; every user's app comes back (its connection is dropped once more and the keeper opens a new one)
    /// and catches up by itself: pushes in order, requests answered, time moved until every sequencer is idle, every
    /// send log empty, every hole the open chat shows filled — and then twice past the silence timeout, as an app left
    /// open would be: a channel whose push was lost is caught up by its silence timer (UPDATE-RULES §6), not by the
    /// common difference (seeds 42, 65 and 370 stopped before it fired).
    mutating func settle() async throws {
        trace.append("settle")
        for client in clients { try await client.connectionLost(server: server, now: clock.now, trace: &trace) }
        var silences = 0
        for _ in 0..<200 {
            var busy = false
            for client in clients {
                while client.inbox.count > 0 {
                    busy = true
                    try await client.deliverPush(at: 0, duplicate: false, now: clock.now, trace: &trace)
                }
                while client.hasAnswerableRequest {
                    busy = true
                    try await client.answerRequest(fail: false, lost: false, server: server, now: clock.now, trace: &trace)
                }
            }
            if !busy {
                var step = 1.0
                if clients.allSatisfy(\.isSettled) {
                    guard silences < 2 else { return }
                    silences += 1
                    step = DeterministicSimulation.timing.noUpdatesTimeout + 1
                    trace.append("time +\(step) s (silence)")
                }
                clock.advance(by: step)
                for client in clients { try await client.fireTimers(server: server, now: clock.now, trace: &trace) }
            }
        }
    }

    /// Each store against the server's truth: counters and every chat's messages (nothing missing, nothing extra,
    /// every text as the server has it).
    mutating func verdict() async throws -> ([String], Int) {
        var violations: [String] = []
        var messages = 0
        for client in clients {
            if !client.isSettled { violations.append("\(client.name) did not settle") }
            let truth = try await ChatsView.server(user: client.index, network: client.session)
            let stored = try await ChatsView.stored(user: client.index, postbox: client.postbox)
            if stored.pts != truth.pts { violations.append("\(client.name): stored pts \(stored.pts), server \(truth.pts)") }
            if let pts = truth.loungePts, stored.loungePts != pts {
                violations.append("\(client.name): stored @lounge pts \(stored.loungePts ?? 0), server \(pts)")
            }
            violations += try await client.workLeft()
            for chat in ChatsView.chats(of: client.index) {
                let server = truth.messages[chat] ?? [], held = stored.messages[chat] ?? []
                // History from before the run is filled on demand: required where the open chat's view shows it.
                let shown = client.openChat == chat ? Set(server.map(\.id).sorted(by: >).prefix(DeterministicClient.viewCount)) : []
                for missing in Set(server).subtracting(held).sorted(by: { $0.id < $1.id })
                    where !before[client.index].contains(missing.id) || shown.contains(missing.id) {
                    violations.append("\(client.name) / \(chat): missing or different \(missing)")
                }
                for extra in Set(held).subtracting(server).sorted(by: { $0.id < $1.id }) {
                    violations.append("\(client.name) / \(chat): stored \(extra), not on the server")
                }
                messages += server.count
                for text in client.queuedTexts where text.contains("→\(chat)") {
                    let copies = server.filter { $0.text == text }.count
                    // Alice's other device may edit or delete her messages; nobody touches Bob's and Carol's.
                    if copies > 1 || (copies == 0 && client.index != 0) { violations.append("\(client.name) / \(chat): \"\(text)\" on the server \(copies) times") }
                }
                trace.append("\(client.name) / \(chat): \(held.map { "\($0.id.id):\(Trace.digest(Array($0.text.utf8)))" }.joined(separator: " "))")
            }
        }
        return (violations, messages)
    }

    func removeNewestStoredMessage(of user: Int) async throws {
        for chat in ChatsView.chats(of: user) {
            let peer = ChatsView.peer(chat)
            let removed = try await clients[user].postbox.transaction { transaction in
                let newest = try transaction.latestMessages(peer: peer, namespace: StoreMapping.cloudMessages, limit: 1)
                try transaction.removeMessages(newest.map(\.id))
                return !newest.isEmpty
            }
            if removed.result { return }
        }
    }

    func stop() async {
        await server.stop()
    }
}
