import MTProto
import TL

extension MessagesRPC {
    /// `messages.setTyping`: pushed at once to the other side or the members as `updateShort`; no pts, never logged.
    enum SetTyping: RPCMethod {
        typealias Function = API.functions.messages.SetTyping

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let input = call.peer
            let (peer, members) = try await server.storageRead { tx -> (PeerRef, [Int64]) in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                switch peer {
                case let .channel(id):
                    _ = try ChannelAccess.member(of: id, user: me, in: tx)
                    return (peer, try tx.memberIDs(channel: id))
                case let .chat(id):
                    return (peer, try tx.chatMembers(chat: id).map(\.userID))   // membership checked by PeerResolution
                case .user:
                    return (peer, [])
                }
            }
            // Typing is unordered: no pts, pushed as updateShort and never logged.
            switch peer {
            case let .user(other) where other != me:
                UpdatePush.single(.updateUserTyping(.init(userId: me, action: call.action)), to: other, date: server.now,
                                  server: server, except: nil)
            case let .chat(id):
                let typing = API.Update.updateChatUserTyping(.init(chatId: id, fromId: .peerUser(.init(userId: me)), action: call.action))
                for member in members where member != me {
                    UpdatePush.single(typing, to: member, date: server.now, server: server, except: nil)
                }
            case let .channel(id):
                let typing = API.Update.updateChannelUserTyping(.init(channelId: id, fromId: .peerUser(.init(userId: me)),
                                                                      action: call.action))
                for member in members where member != me {
                    UpdatePush.single(typing, to: member, date: server.now, server: server, except: nil)
                }
            default:
                break
            }
            return true

        }
    }
}
