import MTProto
import TL

extension MessagesRPC {
    /// `messages.unpinAllMessages` (`UnpinAll`): answers the caller's box's (or the channel's) pts and an `offset` of 1
    /// while pinned messages are left; pushes each box's update to its other sessions. This server has no forum
    /// topics and no saved-messages dialogs: `top_msg_id` is `TOPIC_ID_INVALID`, `saved_peer_id` `PEER_ID_INVALID`.
    enum UnpinAllMessages: RPCMethod {
        typealias Function = API.functions.messages.UnpinAllMessages

        private enum Outcome: Sendable {
            case channel(channel: ChannelRecord, update: API.Update?, members: ChannelAudience, more: Bool)
            case boxes(UnpinAll.Outcome)
        }

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            guard call.topMsgId == nil else { throw .badRequest("TOPIC_ID_INVALID") }
            guard call.savedPeerId == nil else { throw .badRequest("PEER_ID_INVALID") }
            let (input, date) = (call.peer, server.now)
            let outcome = try await server.storageWrite { tx -> Outcome in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                if case let .channel(id) = peer {
                    let unpinned = try UnpinAll.channel(by: me, channel: id, date: date, in: tx)
                    return .channel(channel: unpinned.channel, update: unpinned.update, members: unpinned.members, more: unpinned.more)
                }
                return .boxes(try UnpinAll.boxes(by: me, peer: peer, date: date, in: tx))
            }
            switch outcome {
            case let .channel(channel, update, members, more):
                guard let update, case let .updatePinnedChannelMessages(value) = update else {
                    return .affectedHistory(.init(pts: channel.pts, ptsCount: 0, offset: 0))
                }
                UpdatePush.channelEvent(update, channel: channel, members: members, sender: nil, links: .none, date: date, server: server,
                                        except: context.outlet)
                return .affectedHistory(.init(pts: value.pts, ptsCount: value.ptsCount, offset: more ? 1 : 0))
            case let .boxes(unpinned):
                for event in unpinned.boxes.events {
                    UpdatePush.single(event.update, to: event.user, date: date, server: server, except: context.outlet)
                }
                return .affectedHistory(.init(pts: unpinned.boxes.callerPts, ptsCount: unpinned.boxes.callerPtsCount,
                                              offset: unpinned.more ? 1 : 0))
            }
        }
    }
}
