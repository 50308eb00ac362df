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
                let peers = try inputs.map { input in
                    guard case let .inputDialogPeer(value) = input else { throw RPCError.badRequest("PEER_ID_INVALID") }
                    return try PeerResolution.peer(value.peer, me: me, in: tx)
                }
                let (entries, boxPeers) = try DialogList.entries(for: peers, me: me, in: tx)
                return try DialogList.peerDialogs(entries, boxPeers: boxPeers, me: me, now: now, in: tx)
            }
        }
    }
}
