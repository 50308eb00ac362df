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

/// The engine's calls (log entries, hole and chat-list pages) to the in-process server, failing as the network layer
/// does (`MTProtoClientError.rpc`).
extension LocalSession: RemoteCaller {
    func call<Function: TLFunction>(_ function: Function) async throws -> Function.Result {
        do { return try await ask(function) } catch let error as RPCError { throw MTProtoClientError.rpc(error) }
    }
}

/// One user of a deterministic run: the engine's batch rules (`AccountBatch`: the sequencer and what each batch
/// writes) over a real Postbox, its connection kept by `ConnectionKeeper`, its sends through the operation log
/// (`LoggedOperation`), its open chat's holes planned by `HoleFetchPlanner` and filled by `HistoryHoleFiller`'s page, its
/// chat list by `ChatListFiller`'s page — the components `Account` runs, stepped here instead of by their tasks. Every
/// call waits in `requests` until the run's schedule answers or fails it, and every timer fires on the virtual clock.
final class DeterministicClient {
    enum Request: Equatable, CustomStringConvertible {
        case difference(pts: Int32, qts: Int32, date: Int32)
        case channel(id: Int64, hash: Int64, pts: Int32, limit: Int32)
        /// The send log's worker performs its oldest entry.
        case logEntry
        /// One page of an open chat's hole.
        case hole(HoleFetch)
        /// One page of the chat list's hole (nil: from where the stored hole begins).
        case chatListPage(DialogOffset?)
        /// The keeper's attempt to connect.
        case connect
        /// The server's answer to the keeper's ping.
        case pong(Int64)

        var description: String {
            switch self {
            case let .difference(pts, qts, date): "getDifference(pts \(pts), qts \(qts), date \(date))"
            case let .channel(id, _, pts, limit): "getChannelDifference(\(id), pts \(pts), limit \(limit))"
            case .logEntry: "the oldest send"
            case let .hole(fetch): "getHistory(\(fetch.key.peer.id), offset \(fetch.parameters.offsetID), limit \(fetch.limit))"
            case let .chatListPage(offset): "getDialogs(offset date \(offset?.date ?? -1))"
            case .connect: "connect"
            case let .pong(id): "pong \(id)"
            }
        }

        /// Whether it needs the connection (the keeper's own do not).
        var isCall: Bool {
            switch self {
            case .connect, .pong: false
            default: true
            }
        }
    }

    let index: Int
    let postbox: Postbox
    let inbox = PendingPushes()
    var batch: AccountBatch
    private(set) var session: LocalSession
    /// Sessions so far (the sequencer's session numbers: a difference answered on session N covers the change to N).
    private(set) var sessionNumber = 1
    var requests: [Request] = []
    let timing: SyncTiming
    /// The app's environment: its sends' random ids and dates.
    let environment: SyncEnvironment
    var keeper: ConnectionKeeper<SplitMix64>
    var holes = HoleFetchPlanner()
    var plannedHoles: Set<HoleRequest> = []
    /// The chat the user has open (its history view), and what keeps the view registered.
    var openChat: SimulatedChat?
    var openView: Task<Void, Never>?
    /// The send worker waits until then after a failure (nil: not waiting), with its failures in a row.
    var logRetryAt: Double?
    var logFailures = 0
    /// The chat-list filler's next page and its retry wait.
    var chatListRetryAt: Double?
    var chatListFailures = 0
    var chatListOffset: DialogOffset?
    /// Texts the app queued, in order.
    private(set) var queuedTexts: [String] = []
    private static func authKeyID(of index: Int) -> UInt64 { 0xD0_0000 + UInt64(index) }
    static let keepalive = ConnectionKeeperTiming(keepaliveInterval: 10, pongTimeout: 3, stableAfter: 1, retryCap: 8)

    /// Session `number` of user `index` on `server`, its pushes queued in `inbox`.
    private static func session(_ number: Int, of index: Int, on server: LocalServer, inbox: PendingPushes) -> LocalSession {
        LocalSession(server: server, outlet: server.session(authKeyID: authKeyID(of: index), sessionID: Int64(index) << 32 | Int64(number),
                                                            pushes: { inbox.append($0) }))
    }

    var name: String { SimulationPlan.names[index] }
    var userID: Int64 { SimulatedWorld.userIDs[index] }
    var sequencer: UpdateSequencer { batch.sequencer }
    var isConnected: Bool { keeper.isConnected }

    /// Logs the user in on `server` and starts syncing from the store in `directory` (a fresh one asks the server for
    /// its state and the @lounge's pts, as a new login does), connected.
    init(index: Int, seed: UInt64, directory: String, server: LocalServer, timing: SyncTiming, clock: VirtualClock) async throws {
        self.index = index
        self.timing = timing
        environment = .seeded(seed &+ 0xC11E_0000 &+ UInt64(index), now: { clock.now }, uptime: { clock.now - clock.start })
        keeper = Self.connectedKeeper(seed: seed &+ 0x4EE9 &+ UInt64(index), now: clock.now)
        postbox = try Postbox.open(at: directory + "/client-\(index).sqlite")
        try await server.login(authKeyID: Self.authKeyID(of: index), as: SimulatedWorld.userIDs[index])
        session = Self.session(1, of: index, on: server, inbox: inbox)
        batch = AccountBatch(sequencer: UpdateSequencer(state: SyncState(), configuration: .init(selfID: SimulatedWorld.userIDs[index], timing: timing),
                                                        now: clock.now))
        try await startSequencer(now: clock.now)
    }

    /// A keeper that wants its connection and has it (a start connects before anything else happens).
    private static func connectedKeeper(seed: UInt64, now: Double) -> ConnectionKeeper<SplitMix64> {
        var keeper = ConnectionKeeper(configuration: keepalive, random: SplitMix64(seed: seed))
        _ = keeper.setWanted(true, now: now)
        _ = keeper.connectionOpened(now: now)
        return keeper
    }

    /// The sequencer as a start builds it: from the stored cursor and peers, or, for an empty store, from the
    /// server's state and dialogs (then the chat list's hole is filled page by page, as `ChatListFiller` does).
    private func startSequencer(now: Double) async throws {
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
        try await AccountStateManager.removeOrphanedLocalCopies(postbox)
        batch = AccountBatch(sequencer: UpdateSequencer(state: state ?? SyncState(), peers: peers,
                                                        configuration: .init(selfID: userID, timing: timing), now: now))
        requests = []
        (logRetryAt, logFailures, chatListRetryAt, chatListFailures, chatListOffset) = (nil, 0, nil, 0, nil)
        holes = HoleFetchPlanner()
        plannedHoles = []
    }

    /// The app closed and opened again: the pushes and requests in flight are lost, the sequencer restarts from the
    /// store, on a new connection.
    func restart(server: LocalServer, now: Double, trace: inout [String]) async throws {
        closeChat()
        try await startSequencer(now: now)
        keeper = Self.connectedKeeper(seed: UInt64(sessionNumber) &* 0x9E37 &+ UInt64(index), now: now)
        try await newSession(server: server, now: now, trace: &trace)
        try await start(now: now, trace: &trace)
        try await scheduleWork(now: now, trace: &trace)
    }

    /// The connection is gone (dropped, or closed by the keeper): its pushes are lost and the calls in flight fail (as
    /// a dropped connection fails them in `ConnectionManager`); the keeper decides when to connect again.
    func connectionLost(server: LocalServer, now: Double, trace: inout [String]) async throws {
        guard isConnected else { return }
        trace.append("\(name): the connection is lost")
        server.close(session.outlet)
        inbox.clear()
        let lost = RPCError(code: -503, message: "NETWORK: the connection closed")
        let inFlight = requests.filter(\.isCall)
        requests.removeAll { $0 != .connect }   // the calls failed, a pong is lost with its connection
        for request in inFlight { try await failed(request, lost, now: now, trace: &trace) }
        keeperActions(keeper.connectionClosed(now: now))
    }

    /// A new connection and session (the keeper's connect succeeded, or the app restarted): the sequencer hears of it.
    func newSession(server: LocalServer, now: Double, trace: inout [String]) async throws {
        server.close(session.outlet)
        inbox.clear()
        sessionNumber += 1
        session = Self.session(sessionNumber, of: index, on: server, inbox: inbox)
        try await commit(batch.prepare([.sessionChanged(sessionNumber)], now: now, viewedChannels: { self.viewedChannels }), trace: &trace)
    }

    var viewedChannels: Set<Int64> { openChat == .lounge ? [SimulatedWorld.loungeID] : [] }

    /// The sequencer's start, and the chat-list filler's (which finds no hole once the list is complete).
    func start(now: Double, trace: inout [String]) async throws {
        try await commit(batch.started(now: now), trace: &trace)
        requests.append(.chatListPage(nil))
    }

    /// Hands the push at `position` of the inbox to the sequencer (`duplicate`: a copy stays for later).
    func deliverPush(at position: Int, duplicate: Bool, now: Double, trace: inout [String]) async throws {
        let body = inbox.take(at: position)
        if duplicate { inbox.insert(body, at: position) }
        let updates = try API.Updates.deserialize(body)
        trace.append("\(name) ← push \(updates.constructorName) #\(Trace.digest(body))\(duplicate ? " (duplicated)" : "")")
        try await commit(batch.prepare([.push(body)], now: now, viewedChannels: { self.viewedChannels }), trace: &trace)
    }

    /// The app queues `text` for `chat` (a reply to `replyTo` if given): its local copy and log entry, at once.
    func queue(_ text: String, to chat: SimulatedChat, replyTo: Int32?, trace: inout [String]) async throws {
        if !isConnected { trace.append("\(name) is offline: the send waits in its log") }
        _ = try await AccountStateManager.queueSend(text, to: ChatsView.input(chat), replyTo: replyTo, selfID: userID, in: postbox,
                                                    environment: environment)
        queuedTexts.append(text)
    }

    /// Answers the oldest request that can be answered now (a call needs the connection; the keeper's own do not);
    /// `fail`: it fails (a 500, a refused connection, a lost pong), `lost`: a call reaches the server but its answer
    /// is lost with the connection.
    func answerRequest(fail: Bool, lost: Bool, server: LocalServer, now: Double, trace: inout [String]) async throws {
        guard let position = requests.firstIndex(where: isAnswerable) else { return }
        let request = requests.remove(at: position)
        trace.append("\(name) → \(request)\(fail ? " fails" : lost && request.isCall ? " (its answer is lost)" : "")")
        if fail { return try await failed(request, RPCError(code: 500, message: "INTERNAL_SERVER_ERROR"), now: now, trace: &trace) }
        switch request {
        case let .difference(pts, qts, date):
            let answer = try await session.ask(API.functions.updates.GetDifference(pts: pts, date: date, qts: qts))
            trace.append("\(name) ← \(answer.constructorName) #\(Trace.digest(answer.serialized()))")
            try await commit(batch.prepare([.difference(answer, session: sessionNumber)], now: now, viewedChannels: { self.viewedChannels }),
                             trace: &trace)
        case let .channel(id, hash, pts, limit):
            let answer = try await session.ask(API.functions.updates.GetChannelDifference(
                channel: .inputChannel(.init(channelId: id, accessHash: hash)), filter: .channelMessagesFilterEmpty(.init()), pts: pts, limit: limit))
            trace.append("\(name) ← \(answer.constructorName) #\(Trace.digest(answer.serialized()))")
            try await commit(batch.prepare([.channelDifference(id, answer)], now: now, viewedChannels: { self.viewedChannels }), trace: &trace)
        case .logEntry: try await performLogEntry(lost: lost, now: now, trace: &trace)
        case let .hole(fetch): try await fillHole(fetch, lost: lost, now: now, trace: &trace)
        case let .chatListPage(offset): try await fillChatList(after: offset, lost: lost, now: now, trace: &trace)
        case .connect:
            keeperActions(keeper.connectionOpened(now: now))
            try await newSession(server: server, now: now, trace: &trace)
        case let .pong(id): keeperActions(keeper.pongReceived(id: id, now: now))
        }
        try await scheduleWork(now: now, trace: &trace)
    }

    private func isAnswerable(_ request: Request) -> Bool { !request.isCall || isConnected }
    var hasAnswerableRequest: Bool { requests.contains(where: isAnswerable) }

    /// `request` failed with `error`: each component hears of it as from the network.
    func failed(_ request: Request, _ error: RPCError, now: Double, trace: inout [String]) async throws {
        switch request {
        case .difference: try await commit(batch.prepare([.differenceFailed(error)], now: now, viewedChannels: { self.viewedChannels }), trace: &trace)
        case let .channel(id, _, _, _):
            try await commit(batch.prepare([.channelDifferenceFailed(id, error)], now: now, viewedChannels: { self.viewedChannels }), trace: &trace)
        case .logEntry: logFailed(error, now: now)
        case let .hole(fetch): holeActions(holes.completed(fetch, now: now))
        case let .chatListPage(offset): chatListFailed(error, offset: offset, now: now)
        case .connect: keeperActions(keeper.connectFailed(now: now))
        case .pong: break   // lost: the keeper's pong deadline closes the connection
        }
    }

    /// Fires the timers due by `now`: the sequencer's, the keeper's, the hole planner's, the retry waits.
    func fireTimers(server: LocalServer, now: Double, trace: inout [String]) async throws {
        if let due = sequencer.nextDeadline, due <= now {
            try await commit(batch.prepare([.timers], now: now, viewedChannels: { self.viewedChannels }), trace: &trace)
        }
        if let due = keeper.nextDeadline, due <= now {
            let actions = keeper.fire(now: now)
            if actions.contains(.close) {
                trace.append("\(name): no pong, the keeper closes the connection")
                try await connectionLost(server: server, now: now, trace: &trace)
            }
            keeperActions(actions.filter { $0 != .close })
        }
        if let due = holes.nextDeadline, due <= now { holeActions(holes.fire(now: now)) }
        if let due = logRetryAt, due <= now { logRetryAt = nil }
        if let due = chatListRetryAt, due <= now {
            chatListRetryAt = nil
            requests.append(.chatListPage(chatListOffset))
        }
        try await scheduleWork(now: now, trace: &trace)
    }

    var isSettled: Bool {
        inbox.count == 0 && requests.allSatisfy { if case .pong = $0 { true } else { false } } && sequencer.isIdle && isConnected
            && logRetryAt == nil && chatListRetryAt == nil && holes.runningFetches.isEmpty && postbox.historyHoleRequests.isEmpty
    }

    /// Writes what a batch decided, with its state, in one transaction (as `AccountStateManager.commit`), then queues
    /// its requests.
    func commit(_ prepared: AccountBatch.Prepared, trace: inout [String]) async throws {
        let mutation = prepared.mutation
        _ = try await postbox.transaction { try mutation.apply($0) }
        batch.committed(prepared)
        for output in prepared.outputs {
            switch output {
            case let .deliver(update): trace.append("\(name) applies \(update.constructorName) #\(Trace.digest(update.serialized()))")
            case .entities: break
            case .differenceTooLong: trace.append("\(name): difference too long")
            case let .channelReset(channel, _): trace.append("\(name): channel \(channel) reset")
            case let .getDifference(pts, qts, date): requests.append(.difference(pts: pts, qts: qts, date: date))
            case let .getChannelDifference(channel, hash, pts, limit): requests.append(.channel(id: channel, hash: hash, pts: pts, limit: limit))
            }
        }
        for refused in prepared.refusedChanges { trace.append("\(name): change refused \(refused.error)") }
        let state = prepared.state
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
