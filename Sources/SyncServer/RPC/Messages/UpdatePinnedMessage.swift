import MTProto
import TL

extension MessagesRPC {
    /// `messages.updatePinnedMessage`: pins or unpins (`unpin`) a message, for both sides or (`pm_oneside`, private
    /// chats) the caller only; `silent` is accepted (this server sends no notifications). The caller gets its own
    /// box's (or the channel's) updates; every other box that changed gets its own as a push.
    enum UpdatePinnedMessage: RPCMethod {
        typealias Function = API.functions.messages.UpdatePinnedMessage

        private enum Outcome: Sendable {
            case channel(channel: ChannelRecord, updates: [API.Update], members: ChannelAudience, pinner: UserRecord?, links: ViewerLinks)
            case boxes(PrivateEdits.Outcome, users: [UserRecord], chats: [API.Chat], links: ViewerLinks)
        }

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (input, id, pinned, oneSide, date) = (call.peer, call.id, !call.unpin, call.pmOneside, server.now)
            let outcome = try await server.storageWrite { tx -> Outcome in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                if case let .channel(channelID) = peer {
                    let pin = try ChannelMessaging.pin(by: me, channel: channelID, id: id, pinned: pinned, date: date, in: tx)
                    return .channel(channel: pin.channel, updates: pin.updates, members: pin.members, pinner: try tx.user(id: me),
                                    links: try ViewerLinks.forPush(viewers: pin.members.ids, users: [me], server: server, in: tx))
                }
                let changed = try Pins.update(by: me, peer: peer, id: id, pinned: pinned, oneSide: oneSide, date: date, in: tx)
                let users = try HistoryResults.users(named: [peer], me: me, in: tx)
                return .boxes(changed, users: users, chats: try ChatRendering.chats(among: [peer], viewer: me, in: tx),
                              links: try ViewerLinks.forPush(viewers: changed.events.map(\.user), always: [me], users: users.map(\.id),
                                                             server: server, in: tx))
            }
            switch outcome {
            case let .channel(channel, updates, members, pinner, links):
                for update in updates {
                    UpdatePush.channelEvent(update, channel: channel, members: members, sender: pinner, links: links, date: date, server: server,
                                            except: context.outlet)
                }
                return .updates(.init(
                    updates: updates.map { ChannelRendering.event($0, viewer: me, broadcast: channel.broadcast) },
                    users: pinner.map { [TLRendering.user($0, viewer: me)] } ?? [],
                    chats: [ChannelRendering.chat(channel, seenBy: me, in: members)], date: date, seq: 0))
            case let .boxes(changed, users, chats, links):
                var byOwner: [Int64: [API.Update]] = [:]
                for event in changed.events { byOwner[event.user, default: []].append(event.update) }
                // The caller's other sessions too (its own box changed): only the calling session has the answer.
                for (owner, updates) in byOwner {
                    UpdatePush.withUsers(updates, users: users, links: links, chats: chats, to: owner, date: date, server: server,
                                         except: context.outlet)
                }
                return .updates(.init(updates: byOwner[me] ?? [], users: links.rendered(users, viewer: me), chats: chats,
                                      date: date, seq: 0))
            }
        }
    }
}
