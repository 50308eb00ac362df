import MTProtoNIO
import TL

/// Pushes committed events to online sessions in the compact delivery formats (core.telegram.org/api/updates#updates-sequence):
/// `updateShortMessage` for private text, `updateShort` for one update that needs no users, `updates` for anything
/// with entities or several updates. Never to the session that made the request (it gets the result).
enum UpdatePush {
    /// A new private message to the recipient's sessions and the sender's other sessions.
    static func privateMessage(_ sent: SentPrivateMessage, sender: UserRecord, recipient: UserRecord, server: ServerContext,
                               except caller: SessionOutlet?) {
        guard !sent.isRepeat else { return }
        let users = [sender, recipient]
        deliver(sent.senderCopy, pts: sent.senderPts, to: sender.id, other: recipient.id, users: users, server: server, except: caller)
        if let copy = sent.recipientCopy {
            deliver(copy, pts: sent.recipientPts, to: recipient.id, other: sender.id, users: users, server: server, except: caller)
        }
    }

    private static func deliver(_ message: StoredMessage, pts: Int32, to owner: Int64, other: Int64, users: [UserRecord],
                                server: ServerContext, except caller: SessionOutlet?) {
        let outlets = server.sessions.outlets(of: owner, except: caller)
        guard !outlets.isEmpty else { return }
        let body: API.Updates
        if message.entities.isEmpty {
            body = .updateShortMessage(.init(out: message.out, id: message.id, userId: other, message: message.text, pts: pts,
                                             ptsCount: 1, date: message.date))
        } else {
            body = .updates(.init(
                updates: [.updateNewMessage(.init(message: TLRendering.message(message), pts: pts, ptsCount: 1))],
                users: users.map { TLRendering.user($0, viewer: owner) }, chats: [], date: message.date, seq: 0))
        }
        let bytes = body.serialized()
        for outlet in outlets { outlet.push(bytes) }
    }

    /// One update to all sessions of `user` (except the caller) as `updateShort`.
    static func single(_ update: API.Update, to user: Int64, date: Int32, server: ServerContext, except caller: SessionOutlet?) {
        let outlets = server.sessions.outlets(of: user, except: caller)
        guard !outlets.isEmpty else { return }
        let bytes = API.Updates.updateShort(.init(update: update, date: date)).serialized()
        for outlet in outlets { outlet.push(bytes) }
    }
}
