import Foundation
import MTProto
import MTProtoNIO
import Postbox
import TL

/// The owner of an account's update state (TelegramCore's AccountStateManager, without its 6,000-line switch): one
/// serial queue of operations — pushes, session changes, difference answers, results of the app's RPCs, timers —
/// drained by one loop. Each drained batch goes through the sequencer, and what it changes is written with the new
/// cursor in ONE Postbox transaction before any event is emitted. Operations that arrive while a batch is being
/// written wait and form the next batch, so batching adds no latency when the account is idle. Operations join at the
/// end, except session changes and difference answers, which go first (TelegramCore's `.first` position: what the
/// sequencer postpones during a difference is re-checked after it anyway, so answering it early only saves work).
/// An app's own writes can join the queue (`perform`: its own transaction, after everything queued before it), and
/// `synced()` waits until the queue is empty and no difference, gap or postponed update is pending (poll completion).
///
/// The network is asked for a difference at start and after every session change (core.telegram.org/api/updates);
/// a fresh store first asks `updates.getState`. If a write fails, the sequencer is rebuilt from the stored cursor
/// and a difference fetched, so the store and the state never part.
///
/// One manager per `ConnectionManager` (its update stream has one consumer) and one syncing process per store: two
/// managers writing one store keep reloading each other's cursor (Postbox's master client id is meant to pick one;
/// nothing enforces it yet).
public actor AccountStateManager {
    enum Operation: Sendable {
        /// What the sequencer takes (`AccountBatch`).
        case input(AccountBatch.Input)
        /// App work in its own transaction, after everything queued before it.
        case custom(@Sendable (Transaction) throws -> Void, CheckedContinuation<Void, any Error>)
        /// An operation-log entry was performed; its result is committed with the entry's removal, then `done` resumes.
        case logged(OperationLogEntry, LoggedResult, CheckedContinuation<Void, Never>)
    }

    /// The sequencer and the batch rules (no I/O): this actor feeds it and executes what it decides.
    private var batch: AccountBatch
    private var sequencer: UpdateSequencer { batch.sequencer }
    /// The cursor bytes this manager last committed (or found at start): what each batch expects to find stored.
    private var committedCursor: [UInt8]?
    let postbox: Postbox
    let network: ConnectionManager
    private let now: @Sendable () -> Double
    private var queue: [Operation] = []
    private var wakeUp: CheckedContinuation<Void, Never>?
    private var tasks: [Task<Void, Never>] = []
    private var timer: Task<Void, Never>?
    private(set) var stopped = false
    /// The account change being sent (a change queued meanwhile never replaces it).
    let changeInFlight = ChangeInFlight()
    /// Operation-log workers waiting for a new entry, by tag.
    var logWakeUps: [Int32: CheckedContinuation<Void, Never>] = [:]
    /// Tags woken while their worker was not waiting (it reads again instead of waiting).
    var logWokenEarly: Set<Int32> = []
    /// Committed batches, for tests and benchmarks.
    public private(set) var committedBatches = 0
    /// `updates.getDifference` requests sent (one per start and per reconnect; never two at once).
    public private(set) var differenceRequests = 0
    private let broadcast: EventBroadcast<AccountEvent>
    /// The manager made its broadcast (`stop` ends it); an `Account`'s outlives its managers (a logout, a new login).
    private let ownsBroadcast: Bool
    /// Who waits in `synced()`.
    private var completionWaiters: [CheckedContinuation<Void, Never>] = []
    /// A drained batch is being written.
    private var draining = false
    /// How often the sequencer was rebuilt from the store (`recoverFromFailedWrite`). A difference answer carries the
    /// number it was asked under and is dropped when it differs: the rebuilt sequencer asks anew, and would otherwise
    /// take the first answer to arrive for its own. CI saw it: an answer asked from the pts before a restore moved the
    /// cursor back brought the state past the two messages the restored store lacked, and they were never fetched.
    private(set) var sequencerGeneration = 0
    /// A new subscription to the account's events from now on (each access subscribes anew).
    public nonisolated var events: AsyncStream<AccountEvent> { broadcast.subscribe() }

    private init(sequencer: UpdateSequencer, committedCursor: [UInt8]?, postbox: Postbox, network: ConnectionManager,
                 broadcast: EventBroadcast<AccountEvent>, ownsBroadcast: Bool, now: @escaping @Sendable () -> Double) {
        self.broadcast = broadcast
        self.ownsBroadcast = ownsBroadcast
        batch = AccountBatch(sequencer: sequencer)
        self.committedCursor = committedCursor
        state = sequencer.state
        self.postbox = postbox
        self.network = network
        self.now = now
    }

    /// Loads the cursor and the known peers from `postbox` (a fresh store asks the server for its state) and starts
    /// following `network`'s pushes and session changes.
    public static func start(postbox: Postbox, network: ConnectionManager, selfID: Int64, isBot: Bool = false,
                             timing: SyncTiming = .standard) async throws -> AccountStateManager {
        try await start(postbox: postbox, network: network, selfID: selfID, isBot: isBot, timing: timing, broadcast: EventBroadcast(),
                        ownsBroadcast: true)
    }

    /// As above, emitting into `broadcast` (an `Account`'s, subscribed to before the manager exists).
    static func start(postbox: Postbox, network: ConnectionManager, selfID: Int64, isBot: Bool, timing: SyncTiming,
                      broadcast: EventBroadcast<AccountEvent>, ownsBroadcast: Bool = false) async throws -> AccountStateManager {
        let now = network.environment.uptime
        var cursor = try await postbox.read { try $0.cursor }
        var state = cursor.flatMap(StoreMapping.state(fromCursor:))
        if state == nil, case let .state(initial) = try await network.send(API.functions.updates.GetState()) {
            state = SyncState(pts: initial.pts, qts: initial.qts, seq: initial.seq, date: initial.date)
            let fresh = AccountMutation(state: state ?? SyncState())
            _ = try await postbox.transaction { try fresh.apply($0) }
            cursor = fresh.cursorBytes
        }
        try await removeOrphanedLocalCopies(postbox)
        let peers = try await Self.storedPeers(postbox)
        let sequencer = UpdateSequencer(state: state ?? SyncState(), peers: peers,
                                        configuration: .init(selfID: selfID, isBot: isBot, timing: timing), now: now())
        let manager = AccountStateManager(sequencer: sequencer, committedCursor: cursor, postbox: postbox, network: network,
                                          broadcast: broadcast, ownsBroadcast: ownsBroadcast, now: now)
        await manager.run()
        return manager
    }

    var sequencerSelfID: Int64 { sequencer.configuration.selfID }
    var timing: SyncTiming { sequencer.configuration.timing }
    /// The log entries' calls, over this manager's network.
    var performer: LoggedOperation { LoggedOperation(postbox: postbox, selfID: sequencerSelfID, caller: network) }

    /// The state as last committed to the store (the sequencer's own runs ahead while a batch is being written).
    public private(set) var state: SyncState

    /// The result of an RPC the app made that carries updates (a send's `updateShortSentMessage` with its request).
    public func sent(_ result: API.Updates, request: API.functions.messages.SendMessage? = nil) {
        enqueue(.input(.sent(result, request)))
    }

    /// `messages.affected*` counters of a method the app called (`channel` for a `channels.*` method).
    public func affected(pts: Int32, count: Int32, channel: Int64? = nil) {
        enqueue(.input(.affected(pts: pts, count: count, channel: channel)))
    }

    /// Runs `body` in its own transaction once everything queued before it is committed, so an app's write never
    /// interleaves with a batch (TelegramCore's custom operations).
    public func perform(_ body: @escaping @Sendable (Transaction) throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in enqueue(.custom(body, done)) }
    }

    /// Returns once every queued operation is committed and the sequencer waits for nothing: no difference in flight
    /// or to retry, no possible gap, nothing postponed (poll completion). At start this is "caught up".
    public func synced() async {
        guard !isSynced else { return }
        await withCheckedContinuation { completionWaiters.append($0) }
    }

    private var isSynced: Bool { stopped || (queue.isEmpty && !draining && sequencer.isIdle) }

    private func resumeCompletionWaitersIfSynced() {
        guard isSynced, !completionWaiters.isEmpty else { return }
        for waiter in completionWaiters { waiter.resume() }
        completionWaiters.removeAll()
    }

    /// Stops following the network; what was committed stays.
    public func stop() {
        stopped = true
        for case let .logged(_, _, done) in queue { done.resume() }
        for case let .custom(_, done) in queue { done.resume(throwing: CancellationError()) }
        queue.removeAll()
        for task in tasks { task.cancel() }
        tasks.removeAll()
        timer?.cancel()
        wakeUp?.resume()
        wakeUp = nil
        for waiter in logWakeUps.values { waiter.resume() }
        logWakeUps.removeAll()
        resumeCompletionWaitersIfSynced()
        if ownsBroadcast { broadcast.finish() }
    }

    // MARK: the loop

    private func run() {
        let network = self.network
        tasks.append(Task { [weak self] in
            for await push in network.updates { await self?.enqueue(.input(.push(push))) }
        })
        tasks.append(Task { [weak self] in
            for await change in network.sessionChanges { await self?.enqueue(.input(.sessionChanged(change.number))) }
        })
        tasks.append(Task { [weak self] in await self?.drainLoop() })
        // Another process on the store (one that does not sync) may queue sends and reads for this one.
        let external = postbox.externalCommits()
        tasks.append(Task { [weak self] in
            for await _ in external {
                await self?.wakeLogWorker(OutboxEntry.sendTag)
                await self?.wakeLogWorker(ReadEntry.tag)
                await self?.wakeLogWorker(AccountChangeEntry.tag)
            }
        })
        tasks.append(Task { [weak self] in await self?.logWorker(tag: OutboxEntry.sendTag) })
        tasks.append(Task { [weak self] in await self?.logWorker(tag: ReadEntry.tag) })
        tasks.append(Task { [weak self] in await self?.changeWorker() })
        apply(batch.start(now: now()))
    }

    func enqueue(_ operation: Operation) {
        guard !stopped else {
            switch operation {
            case let .logged(_, _, done): done.resume()   // its entry stays for the next start
            case let .custom(_, done): done.resume(throwing: CancellationError())
            default: break
            }
            return
        }
        if case let .input(input) = operation, input.goesFirst { queue.insert(operation, at: 0) } else { queue.append(operation) }
        wakeUp?.resume()
        wakeUp = nil
    }

    private func drainLoop() async {
        while !stopped {
            if queue.isEmpty { await withCheckedContinuation { wakeUp = $0 } }
            guard !stopped, !queue.isEmpty else { continue }
            if case let .custom(body, done) = queue.first {
                queue.removeFirst()
                await perform(body, done)
                continue
            }
            // A batch ends before the first custom operation (it runs after what was queued before it).
            let end = queue.firstIndex { if case .custom = $0 { true } else { false } } ?? queue.endIndex
            let drained = Array(queue[..<end])
            queue.removeSubrange(..<end)
            draining = true
            var inputs: [AccountBatch.Input] = []
            var waiting: [CheckedContinuation<Void, Never>] = []
            for operation in drained {
                switch operation {
                case let .input(input): inputs.append(input)
                case let .logged(log, result, done):
                    inputs.append(.logged(log, result))
                    waiting.append(done)
                case .custom: break   // a batch ends before the first one
                }
            }
            let postbox = self.postbox
            await commit(batch.prepare(inputs, now: now()) {
                Set(postbox.peersWithOpenHistoryViews.filter { $0.namespace == StoreMapping.channelNamespace }.map(\.id))
            })
            draining = false
            for done in waiting { done.resume() }
            resumeCompletionWaitersIfSynced()
        }
    }

    private func perform(_ body: @escaping @Sendable (Transaction) throws -> Void, _ done: CheckedContinuation<Void, any Error>) async {
        do {
            _ = try await postbox.transaction { try body($0) }
            done.resume()
        } catch {
            done.resume(throwing: error)
        }
    }

    /// The stored cursor changed under this manager (another process, a restore): the batch is not written.
    struct CursorMoved: Error {}

    /// Writes the batch with the cursor, then sends its requests and emits its events. The transaction first checks
    /// that the stored cursor is the one this manager committed last, so a batch is never applied on a state it was
    /// not computed from.
    private func commit(_ prepared: AccountBatch.Prepared) async {
        let mutation = prepared.mutation
        let expected = committedCursor
        do {
            let removed = try await postbox.transaction { transaction in
                guard try transaction.cursor == expected else { throw CursorMoved() }
                return try mutation.apply(transaction)
            }
            if !removed.result.isEmpty { broadcast.yield(.messagesDeleted(removed.result)) }
            committedBatches += 1
            state = prepared.state
            committedCursor = mutation.cursorBytes
            batch.committed(prepared)
        } catch {
            await recoverFromFailedWrite()
            return
        }
        for refused in prepared.refusedChanges { broadcast.yield(.changeRefused(refused.change, error: refused.error)) }
        for send in prepared.sends {
            switch send {
            case let .sent(local, server): broadcast.yield(.sendSucceeded(local: local, server: server))
            case let .failed(local, error): broadcast.yield(.sendFailed(local: local, error: error))
            }
        }
        apply(prepared.outputs)
    }

    /// Requests leave, events are emitted, the next timer is armed.
    private func apply(_ outputs: [SequencerOutput]) {
        for output in outputs {
            switch output {
            case let .deliver(update): broadcast.yield(.delivered(update))
            case .differenceTooLong: broadcast.yield(.differenceTooLong)
            case let .channelReset(channel, _): broadcast.yield(.channelReset(channel))
            case let .getDifference(pts, qts, date): fetchDifference(pts: pts, qts: qts, date: date)
            case let .getChannelDifference(channel, hash, pts, limit): fetchChannelDifference(channel, hash: hash, pts: pts, limit: limit)
            case .entities: break
            }
        }
        armTimer()
    }

    /// The store is the truth: the sequencer restarts from its cursor and fetches a difference. When even the cursor
    /// cannot be read, the one this manager committed last stands in (before, an empty state did, and the committed
    /// state fell back to pts 0: the fault simulation saw it once in 1,000 runs).
    func recoverFromFailedWrite() async {
        let stored = (try? await postbox.read { try $0.cursor }) ?? committedCursor
        let peers = (try? await Self.storedPeers(postbox)) ?? sequencer.peers
        committedCursor = stored
        sequencerGeneration += 1
        queue.removeAll { if case let .input(input) = $0 { input.isDifferenceAnswer } else { false } }
        batch.restart(UpdateSequencer(state: stored.flatMap(StoreMapping.state(fromCursor:)) ?? SyncState(), peers: peers,
                                      configuration: sequencer.configuration, now: now()))
        state = sequencer.state
        enqueue(.input(.sessionChanged(nil)))
    }

    /// A difference answer (or failure) to a request sent under `generation`; dropped if the sequencer was rebuilt since.
    func enqueueAnswer(_ answer: AccountBatch.Input, askedUnder generation: Int) {
        guard generation == sequencerGeneration else { return }
        enqueue(.input(answer))
    }

    private func armTimer() {
        timer?.cancel()
        guard let deadline = sequencer.nextDeadline else { return }
        let delay = max(0, deadline - now())
        timer = Task { [weak self, environment = network.environment] in
            try? await environment.sleep(seconds: delay)
            guard !Task.isCancelled else { return }
            await self?.enqueue(.input(.timers))
        }
    }

    // MARK: requests

    private func fetchDifference(pts: Int32, qts: Int32, date: Int32) {
        differenceRequests += 1
        let (network, generation) = (self.network, sequencerGeneration)
        Task { [weak self] in
            do {
                let answer = try await network.sendNotingSession(API.functions.updates.GetDifference(pts: pts, date: date, qts: qts))
                await self?.enqueueAnswer(.difference(answer.result, session: answer.session), askedUnder: generation)
            } catch {
                await self?.enqueueAnswer(.differenceFailed(Self.rpcError(error)), askedUnder: generation)
            }
        }
    }

    private func fetchChannelDifference(_ channel: Int64, hash: Int64, pts: Int32, limit: Int32) {
        let (network, generation) = (self.network, sequencerGeneration)
        Task { [weak self] in
            do {
                let answer = try await network.send(API.functions.updates.GetChannelDifference(
                    channel: .inputChannel(.init(channelId: channel, accessHash: hash)),
                    filter: .channelMessagesFilterEmpty(.init()), pts: pts, limit: limit))
                await self?.enqueueAnswer(.channelDifference(channel, answer), askedUnder: generation)
            } catch {
                await self?.enqueueAnswer(.channelDifferenceFailed(channel, Self.rpcError(error)), askedUnder: generation)
            }
        }
    }

    /// The server's `rpc_error`, or a network failure as a transient error (retried with backoff).
    static func rpcError(_ error: any Error) -> RPCError {
        if case let MTProtoClientError.rpc(rpc) = error { return rpc }
        return RPCError(code: -503, message: "NETWORK: \(error)")
    }

    // MARK: the store

    /// Local copies left awaiting their server copies by a process that ended (`AwaitedCopy` lives in memory): their
    /// entries are gone, and the catch-up brings the server copies. Run at every start.
    package static func removeOrphanedLocalCopies(_ postbox: Postbox) async throws {
        let orphans = try await postbox.read { transaction in
            let queued = Set(try transaction.operations(tag: OutboxEntry.sendTag).map(OutboxEntry.localMessageID(of:)))
            return try transaction.unsentMessageIDs().filter { $0.namespace == OutboxEntry.localMessages && !queued.contains($0) }
        }
        if !orphans.isEmpty {   // a write only when there is something to remove (a start with none writes nothing)
            _ = try await postbox.transaction { try $0.removeMessages(orphans) }   // (new sends take new local ids)
        }
    }

    /// The access hashes of every user and channel `postbox` stores: what a sequencer started from the store needs.
    public static func storedPeers(_ postbox: Postbox) async throws -> PeerKnowledge {
        var knowledge = PeerKnowledge()
        for peer in try await postbox.read({ try $0.allPeers() }) {
            switch peer {
            case let .user(user) where !user.flags.contains(.min):
                if let hash = user.accessHash { knowledge.learnUser(user.id.id, accessHash: hash) }
            case let .channel(channel) where !channel.flags.contains(.min):
                if let hash = channel.accessHash { knowledge.learnChannel(channel.id.id, accessHash: hash) }
            default:
                break
            }
        }
        return knowledge
    }
}

extension AccountMutation {
    /// Only a cursor (the state a fresh store starts from).
    init(state: SyncState) {
        self.init()
        setCursor(state)
    }
}
