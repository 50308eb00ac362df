import Foundation
import MTProtoNIO
import Postbox
import TL

/// Fills the history holes that open views show (ARCHITECTURE, "History"): it follows Postbox's singleton holes view
/// (the union of what every open history view needs) and fetches each hole with `messages.getHistory`, at most 100
/// messages a request, bounded to the hole (`min_id`/`max_id`) and starting next to what the view shows: a hole on the
/// older side downward from the anchor (or the hole's top), one on the newer side upward from the anchor (or the hole's
/// bottom, with a negative `add_offset`, core.telegram.org/api/offsets); the messages and the shrunk hole are written
/// in one transaction,
/// which re-evaluates the views (a view that still shows a hole asks again at once). One fetch at a time per hole key
/// (peer, namespace, space); a fetch that filled nothing, or failed, puts that key on a 20-second cooldown so a
/// server that has nothing more is not asked in a loop.
public actor HistoryHoleFiller {
    public static let pageSize: Int32 = 100
    public static let cooldown: Duration = .seconds(20)

    private let postbox: Postbox
    private let network: ConnectionManager
    private var fetching: Set<HoleKey> = []
    private var coolingUntil: [HoleKey: ContinuousClock.Instant] = [:]
    private var wanted: Set<HoleRequest> = []
    private var follower: Task<Void, Never>?
    /// Fetches made (for tests and diagnostics).
    public private(set) var fetches = 0

    public init(postbox: Postbox, network: ConnectionManager) {
        self.postbox = postbox
        self.network = network
    }

    public func start() {
        guard follower == nil else { return }
        let holes = postbox.historyHoles()
        follower = Task { [weak self] in
            for await requests in holes { await self?.consider(requests) }
        }
    }

    public func stop() {
        follower?.cancel()
        follower = nil
    }

    private func consider(_ requests: Set<HoleRequest>) {
        wanted = requests
        for request in requests where !fetching.contains(request.key) {
            if let until = coolingUntil[request.key], ContinuousClock.now < until { continue }
            fetching.insert(request.key)
            Task { await self.fill(request) }
        }
    }

    private func fill(_ request: HoleRequest) async {
        fetches += 1
        var filled = false
        do {
            filled = try await fetch(request)
        } catch {
            filled = false
        }
        fetching.remove(request.key)
        if filled {
            coolingUntil[request.key] = nil
        } else {
            coolingUntil[request.key] = ContinuousClock.now + Self.cooldown
        }
        consider(wanted)   // re-evaluate: the transaction's view updates may already have arrived
    }

    /// One page of the hole next to the view; true when the hole shrank.
    private func fetch(_ request: HoleRequest) async throws -> Bool {
        let key = request.key
        guard let peer = try await inputPeer(key.peer) else { return false }
        let hole = request.hole
        let limit = min(Self.pageSize, Int32(clamping: max(request.count, 20)))
        let bounds = (max: hole.upperBound >= Int32.max - 1 ? 0 : hole.upperBound + 1, min: hole.lowerBound - 1)   // exclusive
        let upward = request.direction == .newer
        // Older side: below the anchor (or the hole's top), newest first. Newer side: from the anchor (or the hole's
        // bottom) up, `limit` messages at or above it.
        let start = upward ? max(hole.lowerBound, request.anchor) : min(hole.upperBound, request.anchor)
        let offset: Int32 = upward ? start : (start >= Int32.max - 1 ? 0 : start + 1)   // 0: from the newest message
        let answer = try await network.send(API.functions.messages.GetHistory(
            peer: peer, offsetId: offset, offsetDate: 0, addOffset: upward ? -limit : 0, limit: limit,
            maxId: bounds.max, minId: bounds.min, hash: 0))
        let (messages, users, chats) = (answer.messages, answer.users, answer.chats)
        let stored = messages.compactMap(StoreMapping.message).filter { $0.id.peer == key.peer && hole.contains($0.id.id) }
        // Fewer than asked: everything to the hole's end on that side is known; otherwise up to the farthest received.
        let complete = messages.count < Int(limit)
        let (bottom, top): (Int32, Int32) = upward
            ? (start, complete ? hole.upperBound : (stored.map(\.id.id).max() ?? start))
            : (complete ? hole.lowerBound : (stored.map(\.id.id).min() ?? start), start)
        guard bottom <= top else { return false }
        let peers = StoreMapping.peers(users: users, chats: chats)
        _ = try await postbox.transaction { transaction in
            for (peer, data) in peers { try transaction.updatePeer(peer, data: data) }
            if !stored.isEmpty { try transaction.addMessages(stored) }
            try transaction.removeHole(key, bottom...top)
        }
        return true
    }

    private func inputPeer(_ peer: PeerID) async throws -> API.InputPeer? {
        let data = try await postbox.read { try $0.peer(peer) }
        return StoreMapping.inputPeer(peer, storedData: data)
    }
}
