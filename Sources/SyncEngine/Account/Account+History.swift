import Postbox
import TL

/// Clearing a private chat's or basic group's history (`messages.deleteHistory`), and the loop of the methods answered
/// with counters only (`messages.affectedHistory`).
extension Account {
    /// Deletes `peer`'s history up to its newest stored message — this account's copies, and with `revoke` the other
    /// side's too — on the server, then in the store (the server answers counters only), whose counters then go to
    /// the sequencer; called again while the server says more are left. Channels are refused (`unsupportedPeer`).
    public func deleteHistory(_ peer: PeerID, revoke: Bool = false) async throws {
        let input = try await inputPeer(peer)
        if case .inputPeerChannel = input { throw AccountError.unsupportedPeer("\(peer) is a channel") }
        let top = StoreMapping.newestIndex(in: peer)
        let newest = try await postbox.read { transaction in
            try transaction.messages(peer: peer, namespace: StoreMapping.cloudMessages, from: top, direction: .older, limit: 1).first?.id.id
        }
        let maxID = newest ?? 0
        try await repeatWhileMoreAreLeft({ try await self.network.send(API.functions.messages.DeleteHistory(revoke: revoke, peer: input,
                                                                                                         maxId: maxID)) }) { transaction in
            // Newest first through the whole history; what arrived after the call (ids above maxID) stays.
            var from = top
            while true {
                let page = try transaction.messages(peer: peer, namespace: StoreMapping.cloudMessages, from: from, direction: .older, limit: 500)
                guard let last = page.last else { break }
                try transaction.removeMessages(page.map(\.id).filter { $0.id <= maxID })
                from = last.index
            }
        }
    }

    /// Calls a method answered with `messages.affectedHistory` until its `offset` says nothing is left. After each
    /// answer the store gets `local` — what the server changed, which no update brings to this account — and then the
    /// sequencer the counters (`channel`'s box, or the common one).
    func repeatWhileMoreAreLeft(channel: Int64? = nil, _ call: () async throws -> API.messages.AffectedHistory,
                                local: @escaping @Sendable (Transaction) throws -> Void) async throws {
        while true {
            guard case let .affectedHistory(affected) = try await call() else { return }
            if isMaster {
                let updates = try await syncing()
                try await updates.perform(local)
                await updates.affected(pts: affected.pts, count: affected.ptsCount, channel: channel)
            }
            guard affected.offset > 0 else { return }
        }
    }
}
