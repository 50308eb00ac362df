import MTProtoNIO
import TL

extension UpdatePush {
    /// A basic-group message to every member's sessions (and the sender's other sessions): `updateShortChatMessage`
    /// for plain text, `updates{updateNewMessage}` with the group and the sender for anything else (entities, service
    /// messages), as Telegram delivers them (core.telegram.org/api/updates#updates-sequence).
    /// `sender` first, then every other user the message names (a service message's members); `links`: those users
    /// as each member sees them (`ViewerLinks.forChat`).
    static func chatDelivery(_ delivery: ChatDelivery, sender: UserRecord, naming others: [UserRecord] = [], links: ViewerLinks,
                             server: ServerContext, except caller: SessionOutlet?) {
        guard !delivery.isRepeat else { return }
        let users = [sender] + others.filter { $0.id != sender.id }
        for copy in delivery.copies {
            let outlets = server.sessions.outlets(of: copy.message.owner, except: caller)
            guard !outlets.isEmpty else { continue }
            send(body(for: copy, in: delivery, users: users, links: links).serialized(), to: outlets)
        }
    }

    /// Whether a group message is pushed with its sender (otherwise as `updateShortChatMessage`).
    static func needsSender(_ message: StoredMessage) -> Bool {
        !message.entities.isEmpty || message.action != nil || message.forward != nil || message.media != nil
    }

    private static func body(for copy: ChatDelivery.Copy, in delivery: ChatDelivery, users: [UserRecord], links: ViewerLinks) -> API.Updates {
        let message = copy.message
        if !needsSender(message), let sender = users.first {
            return .updateShortChatMessage(.init(out: message.out, id: message.id, fromId: sender.id, chatId: delivery.chat.id,
                                                 message: message.text, pts: copy.pts, ptsCount: 1, date: message.date,
                                                 replyTo: TLRendering.replyHeader(message.replyTo)))
        }
        let viewer = message.owner
        return .updates(.init(
            updates: [.updateNewMessage(.init(message: TLRendering.message(message), pts: copy.pts, ptsCount: 1))],
            users: links.rendered(users, viewer: viewer),
            chats: [ChatRendering.chat(delivery.chat, memberCount: delivery.memberCount, viewer: viewer)],
            date: message.date, seq: 0))
    }
}
