import Foundation
import MTProtoNIO
import Postbox
import TL

/// Fills the history holes that open views show (docs/ARCHITECTURE.md, "History and the chat list"): it follows Postbox's singleton holes view
/// (the union of what every open history view needs) and executes `HoleFetchPlanner`'s decisions — which hole to
/// fetch next (`HoleFetch`: one `messages.getHistory` page next to what the view shows, bounded to the hole), which
/// to cancel — writing each page's messages and the shrunk hole in one transaction, which re-evaluates the views (a
/// view that still shows a hole asks again at once).
public actor HistoryHoleFiller {
    private let postbox: Postbox
    private let network: ConnectionManager
    private let now: @Sendable () -> Double
    private var planner = HoleFetchPlanner()
    private var tasks: [HoleFetch: Task<Void, Never>] = [:]
    private var follower: Task<Void, Never>?
    private var timer: Task<Void, Never>?
    /// Fetches made (for tests and diagnostics).
    public private(set) var fetches = 0

    /// The clock is the network's (`ConnectionManager.environment`).
    public init(postbox: Postbox, network: ConnectionManager) {
        self.postbox = postbox
        self.network = network
        self.now = network.environment.now
    }

    /// Starts following the store's history holes view.
    public func start() {
        guard follower == nil else { return }
        let holes = postbox.historyHoles()
        follower = Task { [weak self] in
            for await requests in holes { await self?.viewsChanged(requests) }
        }
    }

    /// Cancels the fetches and stops following.
    public func stop() {
        follower?.cancel()
        follower = nil
        timer?.cancel()
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
    }

    private func viewsChanged(_ requests: Set<HoleRequest>) {
        execute(planner.viewsChanged(requests, now: now()))
    }

    private func execute(_ actions: [HoleFetchPlanner.Action]) {
        for action in actions {
            switch action {
            case let .start(fetch):
                fetches += 1
                tasks[fetch] = Task { [weak self] in
                    _ = try? await self?.fill(fetch)
                    await self?.completed(fetch)
                }
            case let .cancel(fetch):
                tasks.removeValue(forKey: fetch)?.cancel()
            }
        }
        timer?.cancel()
        guard follower != nil, let deadline = planner.nextDeadline else { return }
        let delay = max(0, deadline - now())
        timer = Task { [weak self, environment = network.environment] in
            try? await environment.sleep(seconds: delay)
            guard !Task.isCancelled else { return }
            await self?.fire()
        }
    }

    private func completed(_ fetch: HoleFetch) {
        guard tasks.removeValue(forKey: fetch) != nil else { return }   // cancelled meanwhile
        execute(planner.completed(fetch, now: now()))
    }

    private func fire() { execute(planner.fire(now: now())) }

    private func fill(_ fetch: HoleFetch) async throws {
        try await Self.fill(fetch, postbox: postbox, caller: network)
    }

    /// One page: its messages and the part of the hole it proves known, in one transaction (the actor's fetch, and
    /// the deterministic simulation's when its schedule answers one).
    package static func fill(_ fetch: HoleFetch, postbox: Postbox, caller: any RemoteCaller) async throws {
        let known = try await postbox.read { try $0.peer(fetch.key.peer) }
        guard let peer = StoreMapping.inputPeer(fetch.key.peer, stored: known) else { return }
        let parameters = fetch.parameters
        let answer = try await caller.call(API.functions.messages.GetHistory(
            peer: peer, offsetId: parameters.offsetID, offsetDate: 0, addOffset: parameters.addOffset, limit: fetch.limit,
            maxId: parameters.maxID, minId: parameters.minID, hash: 0))
        try Task.checkCancellation()
        let stored = answer.messages.compactMap(StoreMapping.message).filter { $0.id.peer == fetch.key.peer && fetch.hole.contains($0.id.id) }
        guard let filled = fetch.filled(by: stored.map(\.id.id)) else { return }
        let peers = StoreMapping.peers(users: answer.users, chats: answer.chats)
        _ = try await postbox.transaction { transaction in
            try StoreMapping.store(peers, in: transaction)
            if !stored.isEmpty { try transaction.addMessages(stored, countsUnread: false) }   // counted in the chat's read state
            try transaction.removeHole(fetch.key, filled)
        }
    }
}
