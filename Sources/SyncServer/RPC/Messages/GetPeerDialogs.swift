import MTProto
import TL

extension MessagesRPC {
    /// `messages.getPeerDialogs`: the dialogs of the peers named (at most 100), as `getDialogs` renders them, with the
    /// caller's update state. A peer without a dialog is left out; a folder (`inputDialogPeerFolder`) or a community is
    /// `PEER_ID_INVALID` (this server has neither).
    enum GetPeerDialogs: RPCMethod {
        typealias Function = API.functions.messages.GetPeerDialogs

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkIDs(call.peers.count)
            let (inputs, now) = (call.peers, server.now)
            return try await server.storageRead { tx in
                var entries: [DialogList.Entry] = []
                var boxPeers: [PeerRef] = []
                for input in inputs {
                    guard case let .inputDialogPeer(value) = input else { throw RPCError.badRequest("PEER_ID_INVALID") }
                    let peer = try PeerResolution.peer(value.peer, me: me, in: tx)
                    if case let .channel(id) = peer {
                        if let member = try tx.member(channel: id, user: me), let entry = try DialogList.channelEntry(member, me: me, in: tx) {
                            entries.append(entry)
                        }
                    } else if let dialog = try tx.dialog(owner: me, peer: peer) {
                        entries.append(try DialogList.entry(dialog, me: me, in: tx))
                        boxPeers.append(peer)
                    }
                }
                let (chats, users) = try DialogList.peers(of: entries, boxPeers: boxPeers, me: me, in: tx)
                let state = try tx.state(user: me)
                return .peerDialogs(.init(
                    dialogs: entries.map(\.dialog), messages: entries.compactMap(\.message), chats: chats, users: users,
                    state: .state(.init(pts: state.pts, qts: state.qts, date: max(state.date, now), seq: state.seq,
                                        unreadCount: Int32(clamping: try tx.unreadTotal(owner: me))))))
            }
        }
    }
}
