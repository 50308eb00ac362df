import Foundation
import MTProto
import MTProtoNIO
import Postbox
import Synchronization
import SyncEngine
import SyncServer
import TL

/// Pushes a session received and its user has not been handed yet (the in-flight network of a deterministic run).
final class PendingPushes: Sendable {
    private let pushes = Mutex<[[UInt8]]>([])

    func append(_ body: [UInt8]) { pushes.withLock { $0.append(body) } }
    var count: Int { pushes.withLock { $0.count } }
    func take(at index: Int) -> [UInt8] { pushes.withLock { $0.remove(at: index) } }
    func insert(_ body: [UInt8], at index: Int) { pushes.withLock { $0.insert(body, at: index) } }
    func clear() { pushes.withLock { $0.removeAll() } }
}

/// A session of the in-process server as the verdict's source of truth (and the other device's connection).
struct LocalSession: TruthSource {
    let server: LocalServer
    let outlet: SessionOutlet

    func ask<Function: TLFunction>(_ function: Function) async throws -> Function.Result {
        switch await server.call(function, messageID: 0, session: outlet) {
        case let .success(bytes): return try Function.Result.deserialize(bytes)
        case let .failure(error): throw error
        }
    }
}

/// One user of a deterministic run: the engine's sequencer and store mapping over a real Postbox (what
/// `AccountStateManager` runs, without its tasks), a session of the in-process server, the pushes that session
/// received and the requests the sequencer made, both waiting until the run's schedule hands them over.
final class DeterministicClient {
    enum Request: CustomStringConvertible {
        case difference(pts: Int32, qts: Int32, date: Int32)
        case channel(id: Int64, hash: Int64, pts: Int32, limit: Int32)

        var description: String {
            switch self {
            case let .difference(pts, qts, date): "getDifference(pts \(pts), qts \(qts), date \(date))"
            case let .channel(id, _, pts, limit): "getChannelDifference(\(id), pts \(pts), limit \(limit))"
            }
        }
    }

    let index: Int
    let postbox: Postbox
    let inbox = PendingPushes()
    private(set) var sequencer: UpdateSequencer
    private(set) var session: LocalSession
    /// Sessions so far (the sequencer's session numbers: a difference answered on session N covers the change to N).
    private(set) var sessionNumber = 1
    private(set) var requests: [Request] = []
    private static func authKeyID(of index: Int) -> UInt64 { 0xD0_0000 + UInt64(index) }

    /// Session `number` of user `index` on `server`, its pushes queued in `inbox`.
    private static func session(_ number: Int, of index: Int, on server: LocalServer, inbox: PendingPushes) -> LocalSession {
        LocalSession(server: server, outlet: server.session(authKeyID: authKeyID(of: index), sessionID: Int64(index) << 32 | Int64(number),
                                                            pushes: { inbox.append($0) }))
    }

    var name: String { SimulationPlan.names[index] }
    var userID: Int64 { SimulatedWorld.userIDs[index] }

    /// Logs the user in on `server` and starts syncing from the store in `directory` (a fresh one asks the server for
    /// its state and the @lounge's pts, as a new login does).
    init(index: Int, directory: String, server: LocalServer, timing: SyncTiming, now: Double) async throws {
        self.index = index
        postbox = try Postbox.open(at: directory + "/client-\(index).sqlite")
        try await server.login(authKeyID: Self.authKeyID(of: index), as: SimulatedWorld.userIDs[index])
        session = Self.session(1, of: index, on: server, inbox: inbox)
        sequencer = UpdateSequencer(state: SyncState(), configuration: .init(selfID: SimulatedWorld.userIDs[index], timing: timing), now: now)
        try await startSequencer(timing: timing, now: now)
    }

    /// The sequencer as a start builds it: from the stored cursor and peers, or, for an empty store, from the
    /// server's state and dialogs.
    private func startSequencer(timing: SyncTiming, now: Double) async throws {
        var state = try await postbox.read { try $0.cursor }.flatMap(StoreMapping.state(fromCursor:))
        var peers = try await AccountStateManager.storedPeers(postbox)
        if state == nil {
            guard case let .state(initial) = try await session.ask(API.functions.updates.GetState()) else { return }
            var fresh = SyncState(pts: initial.pts, qts: initial.qts, seq: initial.seq, date: initial.date)
            let dialogs = try await session.ask(API.functions.messages.GetDialogs(
                offsetDate: 0, offsetId: 0, offsetPeer: .inputPeerEmpty(.init()), limit: 100, hash: 0)).parts
            for case let .dialog(dialog) in dialogs.dialogs where StoreMapping.peerID(dialog.peer) == ChatsView.peer(.lounge) {
                fresh.channels[SimulatedWorld.loungeID] = dialog.pts
            }
            // The people the app writes to, resolved once (as an app does before its first message to them).
            var users = dialogs.users
            for other in SimulationPlan.names.indices where other != index {
                if case let .resolvedPeer(resolved) = try await session.ask(API.functions.contacts.ResolveUsername(
                    username: SimulationPlan.names[other].lowercased())) { users += resolved.users }
            }
            peers.ingest(users: users, chats: dialogs.chats)
            state = fresh
            var mutation = AccountMutation()
            mutation.merge(users: users, chats: dialogs.chats)
            mutation.setCursor(fresh)
            let first = mutation
            _ = try await postbox.transaction { try first.apply($0) }
        }
        sequencer = UpdateSequencer(state: state ?? SyncState(), peers: peers,
                                    configuration: .init(selfID: userID, timing: timing), now: now)
        requests = []
    }

    /// The app closed and opened again: the pushes and requests in flight are lost, the sequencer restarts from the
    /// store, on a new session.
    func restart(server: LocalServer, timing: SyncTiming, now: Double, trace: inout [String]) async throws {
        try await startSequencer(timing: timing, now: now)
        try await newSession(server: server, now: now, trace: &trace)
        try await commit(sequencer.start(now: now), trace: &trace)
    }

    /// A new connection and session: the old one's pushes are lost and its requests fail (as a dropped connection fails
    /// them in `AccountStateManager`), then the sequencer hears of the new session.
    func newSession(server: LocalServer, now: Double, trace: inout [String]) async throws {
        server.close(session.outlet)
        inbox.clear()
        let lost = RPCError(code: -503, message: "NETWORK: the connection closed")
        for request in requests {
            switch request {
            case .difference: try await commit(sequencer.differenceFailed(lost, now: now), trace: &trace)
            case let .channel(id, _, _, _): try await commit(sequencer.channelDifferenceFailed(id, lost, now: now), trace: &trace)
            }
        }
        requests = []
        sessionNumber += 1
        session = Self.session(sessionNumber, of: index, on: server, inbox: inbox)
        try await commit(sequencer.sessionChanged(session: sessionNumber, now: now), trace: &trace)
    }

    func start(now: Double, trace: inout [String]) async throws {
        try await commit(sequencer.start(now: now), trace: &trace)
    }

    /// Hands the push at `position` of the inbox to the sequencer (`duplicate`: a copy stays for later).
    func deliverPush(at position: Int, duplicate: Bool, now: Double, trace: inout [String]) async throws {
        let body = inbox.take(at: position)
        if duplicate { inbox.insert(body, at: position) }
        let updates = try API.Updates.deserialize(body)
        trace.append("\(name) ← push \(updates.constructorName) #\(Trace.digest(body))\(duplicate ? " (duplicated)" : "")")
        try await commit(sequencer.push(updates, now: now), trace: &trace)
    }

    /// The answer to a call the user made (nil: the answer was lost with its connection).
    func sent(_ result: API.Updates?, request: API.functions.messages.SendMessage?, now: Double, trace: inout [String]) async throws {
        guard let result else { return trace.append("\(name): the answer was lost") }
        trace.append("\(name) ← answer \(result.constructorName) #\(Trace.digest(result.serialized()))")
        try await commit(sequencer.sent(result, request: request, now: now), trace: &trace)
    }

    /// Answers the oldest outstanding request from the server, now (`fail`: as a 500 instead).
    func answerRequest(fail: Bool, now: Double, trace: inout [String]) async throws {
        let request = requests.removeFirst()
        trace.append("\(name) → \(request)\(fail ? " fails" : "")")
        let error = RPCError(code: 500, message: "INTERNAL_SERVER_ERROR")
        switch request {
        case let .difference(pts, qts, date):
            if fail { return try await commit(sequencer.differenceFailed(error, now: now), trace: &trace) }
            let answer = try await session.ask(API.functions.updates.GetDifference(pts: pts, date: date, qts: qts))
            trace.append("\(name) ← \(answer.constructorName) #\(Trace.digest(answer.serialized()))")
            try await commit(sequencer.differenceReceived(answer, session: sessionNumber, now: now), trace: &trace)
        case let .channel(id, hash, pts, limit):
            if fail { return try await commit(sequencer.channelDifferenceFailed(id, error, now: now), trace: &trace) }
            let answer = try await session.ask(API.functions.updates.GetChannelDifference(
                channel: .inputChannel(.init(channelId: id, accessHash: hash)), filter: .channelMessagesFilterEmpty(.init()), pts: pts, limit: limit))
            trace.append("\(name) ← \(answer.constructorName) #\(Trace.digest(answer.serialized()))")
            try await commit(sequencer.channelDifferenceReceived(id, answer, now: now), trace: &trace)
        }
    }

    /// Fires the timers due by `now`.
    func fireTimers(now: Double, trace: inout [String]) async throws {
        guard let due = sequencer.nextDeadline, due <= now else { return }
        try await commit(sequencer.fireTimers(now: now), trace: &trace)
    }

    var isSettled: Bool { inbox.count == 0 && requests.isEmpty && sequencer.isIdle }

    /// Writes what the sequencer decided, with its state, in one transaction (as `AccountStateManager.commit`), then
    /// queues its requests.
    private func commit(_ outputs: [SequencerOutput], trace: inout [String]) async throws {
        guard !outputs.isEmpty else { return }
        let mutation = AccountMutation(outputs, state: sequencer.state)
        _ = try await postbox.transaction { try mutation.apply($0) }
        for output in outputs {
            switch output {
            case let .deliver(update): trace.append("\(name) applies \(update.constructorName) #\(Trace.digest(update.serialized()))")
            case .entities: break
            case .differenceTooLong: trace.append("\(name): difference too long")
            case let .channelReset(channel, _): trace.append("\(name): channel \(channel) reset")
            case let .getDifference(pts, qts, date): requests.append(.difference(pts: pts, qts: qts, date: date))
            case let .getChannelDifference(channel, hash, pts, limit): requests.append(.channel(id: channel, hash: hash, pts: pts, limit: limit))
            }
        }
        let state = sequencer.state
        trace.append("\(name) state pts \(state.pts) qts \(state.qts) seq \(state.seq) date \(state.date) @lounge \(state.channels[SimulatedWorld.loungeID] ?? 0)")
    }
}

/// Compact, stable names for bytes in a trace.
enum Trace {
    /// FNV-1a, 64 bits, hex: the same bytes give the same digest in every process.
    static func digest(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
