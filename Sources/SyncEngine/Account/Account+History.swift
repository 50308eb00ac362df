import Postbox
import TL

/// Clearing a private chat's or basic group's history (`messages.deleteHistory`).
extension Account {
    /// Deletes `peer`'s history up to its newest stored message — this account's copies, and with `revoke` the other
    /// side's too — on the server, then in the store (the server answers counters only), whose counters then go to
    /// the sequencer; called again while the server says more are left. Channels are refused (`unsupportedPeer`).
    public func deleteHistory(_ peer: PeerID, revoke: Bool = false) async throws {
        let input = try await inputPeer(peer)
        if case .inputPeerChannel = input { throw AccountError.unsupportedPeer("\(peer) is a channel") }
        let top = MessageIndex(id: MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: .max), timestamp: .max)
        let newest = try await postbox.read { transaction in
            try transaction.messages(peer: peer, namespace: StoreMapping.cloudMessages, from: top, direction: .older, limit: 1).first?.id.id
        }
        let maxID = newest ?? 0
        while true {
            guard case let .affectedHistory(affected) = try await network.send(API.functions.messages.DeleteHistory(
                revoke: revoke, peer: input, maxId: maxID)) else { return }
            if isMaster {
                let updates = try await syncing()
                try await updates.perform { transaction in
                    // Newest first through the whole history; what arrived after the call (ids above maxID) stays.
                    var from = top
                    while true {
                        let page = try transaction.messages(peer: peer, namespace: StoreMapping.cloudMessages, from: from, direction: .older,
                                                            limit: 500)
                        guard let last = page.last else { break }
                        try transaction.removeMessages(page.map(\.id).filter { $0.id <= maxID })
                        from = last.index
                    }
                }
                await updates.affected(pts: affected.pts, count: affected.ptsCount)
            }
            guard affected.offset > 0 else { return }
        }
    }
}
