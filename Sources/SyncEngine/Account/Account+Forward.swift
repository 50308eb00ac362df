import Postbox
import TL

/// Forwarding (`messages.forwardMessages`).
extension Account {
    /// Forwards messages `ids` of `source` to `destination` (at most 100; each with a random id of its own, so a
    /// retried call does not forward twice). The copies carry a `fwd_from` header naming the first author, unless
    /// `dropAuthor`. The answer's updates go through the sequencer, as a send's: the store shows the copies once they are
    /// applied.
    public func forward(_ ids: [Int32], from source: PeerID, to destination: PeerID, dropAuthor: Bool = false) async throws {
        let updates = try await network.send(API.functions.messages.ForwardMessages(
            dropAuthor: dropAuthor, fromPeer: try await inputPeer(source), id: ids,
            randomId: ids.map { _ in environment.random.int64(in: 1...Int64.max) }, toPeer: try await inputPeer(destination)))
        if isMaster { try await syncing().sent(updates) }
    }
}
