import MTProtoNIO
import TL

/// Pushes committed events to online sessions in the compact delivery formats (core.telegram.org/api/updates#updates-sequence):
/// `updateShortMessage` for private text, `updateShort` for one update that needs no users, `updates` for anything
/// with entities or several updates. Never to the session that made the request (it gets the result).
enum UpdatePush {
    /// A new private message to the recipient's sessions and the sender's other sessions.
    /// `links`: how each side sees the other (read when the message needs `updates` with users, `needsUsers`).
    static func privateMessage(_ sent: SentPrivateMessage, sender: UserRecord, recipient: UserRecord, links: ViewerLinks,
                               server: ServerContext, except caller: SessionOutlet?) {
        guard !sent.isRepeat else { return }
        let users = [sender, recipient]
        deliver(sent.senderCopy, pts: sent.senderPts, to: sender.id, other: recipient.id, users: users, links: links, server: server,
                except: caller)
        if let copy = sent.recipientCopy {
            deliver(copy, pts: sent.recipientPts, to: recipient.id, other: sender.id, users: users, links: links, server: server,
                    except: caller)
        }
    }

    /// Whether a private message is pushed with its users (otherwise as `updateShortMessage`, which names none).
    static func needsUsers(_ message: StoredMessage) -> Bool {
        !message.entities.isEmpty || message.forward != nil || message.media != nil
    }

    private static func deliver(_ message: StoredMessage, pts: Int32, to owner: Int64, other: Int64, users: [UserRecord],
                                links: ViewerLinks, server: ServerContext, except caller: SessionOutlet?) {
        let outlets = server.sessions.outlets(of: owner, except: caller)
        guard !outlets.isEmpty else { return }
        let body: API.Updates
        if !needsUsers(message) {
            body = .updateShortMessage(.init(out: message.out, id: message.id, userId: other, message: message.text, pts: pts,
                                             ptsCount: 1, date: message.date, replyTo: TLRendering.replyHeader(message.replyTo)))
        } else {
            body = .updates(.init(
                updates: [.updateNewMessage(.init(message: TLRendering.message(message), pts: pts, ptsCount: 1))],
                users: links.rendered(users, viewer: owner), chats: [], date: message.date, seq: 0))
        }
        let bytes = body.serialized()
        send(bytes, to: outlets)
    }

    /// Hands a serialized `Updates` to sessions; counts what was queued and what a full or closed queue dropped.
    static func send(_ bytes: [UInt8], to outlets: [SessionOutlet]) {
        var delivered = 0
        for outlet in outlets where outlet.push(bytes) { delivered += 1 }
        ServerMetrics.pushes(delivered: delivered, dropped: outlets.count - delivered)
    }

    /// One update to all sessions of `user` (except the caller) as `updateShort`.
    static func single(_ update: API.Update, to user: Int64, date: Int32, server: ServerContext, except caller: SessionOutlet?) {
        let outlets = server.sessions.outlets(of: user, except: caller)
        guard !outlets.isEmpty else { return }
        let bytes = API.Updates.updateShort(.init(update: update, date: date)).serialized()
        send(bytes, to: outlets)
    }
}

extension UpdatePush {
    /// A logged channel event to the online sessions of its members, as `updates{update, chats: [channel]}` (the
    /// form real clients expect for channel posts). Rendered once for the sender (`out`), once for all the plain members
    /// not linked to the sender by a contact list either way, and once for each member who is (`links`: the sender as
    /// each member sees them — saved name, flags, phone) and for each of the creator, the admins and the restricted
    /// members (the channel with their rights or restrictions, `ChannelAudience`).
    /// `others`: the other users the event names (a service message's members, a forward's origin); `otherChats`: the
    /// other chats it names, in a form every member may be given (`ChannelRendering.minimal`).
    static func channelEvent(_ update: API.Update, channel: ChannelRecord, members: ChannelAudience, sender: UserRecord?,
                             naming others: [UserRecord] = [], otherChats: [API.Chat] = [], links: ViewerLinks, date: Int32,
                             server: ServerContext, except caller: SessionOutlet?) {
        var shared: [Bool: [UInt8]] = [:]
        let users = (sender.map { [$0] } ?? []) + others.filter { $0.id != sender?.id }
        for member in members {
            let outlets = server.sessions.outlets(of: member, except: caller)
            guard !outlets.isEmpty else { continue }
            let isSender = member == sender?.id
            let linked = users.contains { links.link(viewer: member, user: $0.id) != .none }
            let render = {
                API.Updates.updates(.init(
                    updates: [ChannelRendering.event(update, viewer: member, broadcast: channel.broadcast)],
                    users: links.rendered(users, viewer: member),
                    chats: [ChannelRendering.chat(channel, seenBy: member, in: members)] + otherChats,
                    date: date, seq: 0)).serialized()
            }
            guard !linked, members.standing[member] == nil else { send(render(), to: outlets); continue }
            let bytes = shared[isSender] ?? render()
            shared[isSender] = bytes
            send(bytes, to: outlets)
        }
    }

    /// Unordered updates about a channel itself (`updateChannel`) to the online sessions of its members, each with the
    /// channel as they see it: rendered once for all the plain members, once for each member of the standing.
    static func channelChanged(_ updates: [API.Update], channel: ChannelRecord, members: ChannelAudience, date: Int32,
                               server: ServerContext, except caller: SessionOutlet?) {
        var plain: [UInt8]?
        for member in members {
            let outlets = server.sessions.outlets(of: member, except: caller)
            guard !outlets.isEmpty else { continue }
            let render = {
                API.Updates.updates(.init(updates: updates, users: [], chats: [ChannelRendering.chat(channel, seenBy: member, in: members)],
                                          date: date, seq: 0)).serialized()
            }
            guard members.standing[member] == nil else { send(render(), to: outlets); continue }
            let bytes = plain ?? render()
            plain = bytes
            send(bytes, to: outlets)
        }
    }

    /// An unordered update with the chats and users it names, to the sessions of `user` except the caller.
    static func updates(_ updates: [API.Update], chats: [API.Chat], to user: Int64, date: Int32, server: ServerContext,
                        except caller: SessionOutlet?) {
        let outlets = server.sessions.outlets(of: user, except: caller)
        guard !outlets.isEmpty else { return }
        let bytes = API.Updates.updates(.init(updates: updates, users: [], chats: chats, date: date, seq: 0)).serialized()
        send(bytes, to: outlets)
    }
}

extension UpdatePush {
    /// Updates that name users and basic groups (an edited message, a pin and its service message) to the sessions of
    /// `user`, as one `updates` with those users and chats.
    static func withUsers(_ updates: [API.Update], users: [UserRecord], links: ViewerLinks, chats: [API.Chat] = [], to user: Int64,
                          date: Int32, server: ServerContext, except caller: SessionOutlet?) {
        let outlets = server.sessions.outlets(of: user, except: caller)
        guard !outlets.isEmpty else { return }
        let bytes = API.Updates.updates(.init(updates: updates, users: links.rendered(users, viewer: user), chats: chats,
                                              date: date, seq: 0)).serialized()
        send(bytes, to: outlets)
    }
}
