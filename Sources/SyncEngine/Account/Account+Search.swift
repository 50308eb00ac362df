import Postbox
import TL

/// Search in a chat (`messages.search`), answered by the server: a store holds only what was synced or fetched, and a
/// search must find older messages too.
extension Account {
    /// The newest `limit` (at most 100) messages of `peer` whose text contains `query` (ASCII letters in any case),
    /// newest first, only pinned ones with `pinnedOnly`, and before message `offsetID` when given (the next page: the
    /// last result's id). The users and chats they name are stored; the messages are returned, not stored (the
    /// history's holes stay as they are).
    public func search(_ query: String, in peer: PeerID, limit: Int32 = 50, pinnedOnly: Bool = false,
                       offsetID: Int32 = 0) async throws -> [Message] {
        let answer = try await network.send(API.functions.messages.Search(
            peer: try await inputPeer(peer), q: query,
            filter: pinnedOnly ? .inputMessagesFilterPinned(.init()) : .inputMessagesFilterEmpty(.init()),
            minDate: 0, maxDate: 0, offsetId: offsetID, addOffset: 0, limit: limit, maxId: 0, minId: 0, hash: 0))
        let peers = StoreMapping.peers(users: answer.users, chats: answer.chats)
        _ = try await postbox.transaction { transaction in
            try StoreMapping.store(peers, in: transaction)
        }
        return answer.messages.compactMap(StoreMapping.message)
    }
}
