import Foundation
import MTProto
import MTProtoNIO
import Postbox
import SyncEngine
import SyncServer
import TL

/// The work `Account`'s tasks do besides syncing, as the deterministic run steps it: the send log's worker, the hole
/// filler of the open chat, the chat-list filler and the connection keeper. Each decides what to ask (a request in
/// the queue) and what a failure means (a retry wait on the virtual clock) with the engine's own rules.
extension DeterministicClient {
    /// Queues what the components want now: the oldest send when the log has one and the worker is not waiting, the
    /// holes the open view asks for.
    func scheduleWork(now: Double, trace: inout [String]) async throws {
        if logRetryAt == nil, !requests.contains(.logEntry),
           try await postbox.read({ try !$0.operations(tag: OutboxEntry.sendTag, limit: 1).isEmpty }) {
            requests.append(.logEntry)
        }
        let wanted = postbox.historyHoleRequests
        if wanted != plannedHoles {
            plannedHoles = wanted
            holeActions(holes.viewsChanged(wanted, now: now))
        }
    }

    /// What a settled client must not have left: log entries, local copies (unsent or failed), the chat list's hole,
    /// holes its open chat shows.
    func workLeft() async throws -> [String] {
        var left: [String] = []
        let chats = ChatsView.chats(of: index)
        let (entries, locals, chatListHole) = try await postbox.read { transaction in
            var locals: [String] = []
            for chat in chats {
                locals += try transaction.latestMessages(peer: ChatsView.peer(chat), namespace: OutboxEntry.localMessages, limit: 100)
                    .map { "\($0.text) (\($0.flags.contains(.failed) ? "failed" : "unsent"))" }
            }
            return (try transaction.operations(tag: OutboxEntry.sendTag).count, locals, try transaction.chatListHole)
        }
        if entries > 0 { left.append("\(name): \(entries) sends still in the log") }
        if !locals.isEmpty { left.append("\(name): local copies left: \(locals.joined(separator: ", "))") }
        if chatListHole != nil { left.append("\(name): the chat list still has a hole") }
        if !postbox.historyHoleRequests.isEmpty { left.append("\(name): its open chat still shows a hole") }
        return left
    }

    // MARK: the send log

    /// The worker's call for the oldest entry (`LoggedOperation`): its result committed with the entry's removal in one
    /// batch; a refusal ends the entry; a failure, or an answer lost after the server executed the call, leaves it for
    /// a retry after the timing's backoff (the same `random_id`, so the server keeps one message).
    func performLogEntry(lost: Bool, now: Double, trace: inout [String]) async throws {
        guard let log = try await postbox.read({ try $0.operations(tag: OutboxEntry.sendTag, limit: 1) }).first else { return }
        let performer = LoggedOperation(postbox: postbox, selfID: userID, caller: session)
        let result: LoggedResult
        do {
            result = try await performer.perform(log)
        } catch let MTProtoClientError.rpc(error) where timing.retryDelay(error, failures: logFailures) == nil {
            result = .refused(error.message)
        } catch let MTProtoClientError.rpc(error) {
            return logFailed(error, now: now)
        }
        if lost { return logFailed(RPCError(code: -503, message: "NETWORK: the answer was lost"), now: now) }
        logFailures = 0
        trace.append("\(name) ← send result \(Self.describe(result))")
        try await commit(batch.prepare([.logged(log, result)], now: now, viewedChannels: { self.viewedChannels }), trace: &trace)
    }

    func logFailed(_ error: RPCError, now: Double) {
        let delay = timing.retryDelay(error, failures: logFailures) ?? timing.retryBase
        logFailures += 1
        logRetryAt = now + delay
    }

    private static func describe(_ result: LoggedResult) -> String {
        switch result {
        case let .sent(updates, _): "\(updates.constructorName) #\(Trace.digest(updates.serialized()))"
        case let .refused(error): "refused \(error ?? "unreadable")"
        default: "\(result)"
        }
    }

    // MARK: the open chat's holes

    /// Messages the open chat's view shows.
    static let viewCount = 60

    /// The user opens `chat`: a history view of its newest messages, whose holes the planner fills.
    func open(_ chat: SimulatedChat, trace: inout [String]) async throws {
        closeChat()
        let before = postbox.openViewCount
        let updates = postbox.view(MessageHistoryView(peer: ChatsView.peer(chat), namespace: StoreMapping.cloudMessages, count: Self.viewCount))
        openView = Task { do { for try await _ in updates {} } catch {} }
        openChat = chat
        // The view registers on the store's writer; the run goes on once it has (and its holes are published).
        while postbox.openViewCount <= before { try await Task.sleep(for: .milliseconds(1)) }
        trace.append("\(name) opens \(chat)")
    }

    func closeChat() {
        guard let view = openView else { return }
        let before = postbox.openViewCount
        view.cancel()
        openView = nil
        openChat = nil
        // Unregistered when its stream ends (at once on cancellation); wait so the next step sees no holes of it.
        var spins = 0
        while postbox.openViewCount >= before && spins < 5_000 { spins += 1; usleep(200) }
    }

    func holeActions(_ actions: [HoleFetchPlanner.Action]) {
        for action in actions {
            switch action {
            case let .start(fetch): requests.append(.hole(fetch))
            case let .cancel(fetch): requests.removeAll { $0 == .hole(fetch) }
            }
        }
    }

    /// One page of a hole (`HistoryHoleFiller`'s page), then the planner hears it completed.
    func fillHole(_ fetch: HoleFetch, lost: Bool, now: Double, trace: inout [String]) async throws {
        if lost {
            _ = try? await session.ask(API.functions.messages.GetHistory(peer: .inputPeerEmpty(.init()), offsetId: 0, offsetDate: 0,
                                                                       addOffset: 0, limit: 1, maxId: 0, minId: 0, hash: 0))
        } else {
            try await HistoryHoleFiller.fill(fetch, postbox: postbox, caller: session)
        }
        holeActions(holes.completed(fetch, now: now))
    }

    // MARK: the chat list

    /// One page of the chat list's hole (`ChatListFiller`'s page); the next is asked at once, a failure waits.
    func fillChatList(after offset: DialogOffset?, lost: Bool, now: Double, trace: inout [String]) async throws {
        if lost { return chatListFailed(RPCError(code: -503, message: "NETWORK: the answer was lost"), offset: offset, now: now) }
        let step: ChatListFiller.Step
        do {
            step = try await ChatListFiller.fillPage(after: offset, postbox: postbox, caller: session)
        } catch let MTProtoClientError.rpc(error) {
            return chatListFailed(error, offset: offset, now: now)
        }
        chatListFailures = 0
        trace.append("\(name) ← chat list page: \(step)")
        if case let .fetched(next?) = step { requests.append(.chatListPage(next)) }
    }

    func chatListFailed(_ error: RPCError, offset: DialogOffset?, now: Double) {
        guard let delay = timing.retryDelay(error, failures: chatListFailures) else { return }
        chatListFailures += 1
        chatListOffset = offset
        chatListRetryAt = now + delay
    }

    // MARK: the connection

    /// The keeper's decisions: a connection attempt and pings wait for the schedule (a `.close` is the caller's).
    func keeperActions(_ actions: [ConnectionKeeper<SplitMix64>.Action]) {
        for action in actions {
            switch action {
            case .connect: if !requests.contains(.connect) { requests.append(.connect) }
            case let .ping(id, _): requests.append(.pong(id))
            case .close: break
            }
        }
    }
}
