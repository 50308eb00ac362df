import Postbox
import TL

/// Forwarding (`messages.forwardMessages`), through the send log: each forwarded message shows at once as a local
/// unsent copy and is replaced by the server's copy, as a send is.
extension Account {
    /// Forwards messages `ids` of `source` (stored here) to `destination`, each with a random id of its own fixed when it
    /// is queued, so a retry does not forward twice. The copies carry a `fwd_from` header naming the first author,
    /// unless `dropAuthor`. Returns the local copies' ids (namespace `OutboxEntry.localMessages`).
    @discardableResult
    public func forward(_ ids: [Int32], from source: PeerID, to destination: PeerID, dropAuthor: Bool = false) async throws -> [MessageID] {
        let (from, to) = (try await inputPeer(source), try await inputPeer(destination))
        guard let user, !closed else { throw closed ? AccountError.closed : AccountError.notLoggedIn }
        let locals = try await AccountStateManager.queueForward(ids, from: from, sourcePeer: source, to: to, dropAuthor: dropAuthor,
                                                                selfID: user.id, in: postbox, environment: network.environment)
        if isMaster { try? await syncing().wakeLogWorker(OutboxEntry.sendTag) }   // queued either way: sent once syncing runs
        return locals
    }
}
