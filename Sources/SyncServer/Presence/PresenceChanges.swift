import MTProtoNIO
import TL

/// A change of a user's status told to everyone with a dialog with the user or the user among their contacts
/// (`Profiles.audience`) as an `updateShort(updateUserStatus)` — no seq: a status is not logged, and whoever missed it
/// sees the status in the next `user` the server gives them. Only this process's sessions are told (the registry is
/// per process).
enum PresenceChanges {
    static func tell(_ user: Int64, _ status: PresenceRegistry.Status, server: ServerContext) async {
        let owners: [Int64]
        do {
            owners = try await server.storage.readLatest { tx in try Profiles.audience(of: user, in: tx) }
        } catch {
            server.logger.warning("cannot read whom to tell of a status", metadata: ["user": "\(user)", "error": "\(error)"])
            return
        }
        let update = API.Updates.updateShort(.init(
            update: .updateUserStatus(.init(userId: user, status: PresenceRegistry.rendered(status))), date: server.now)).serialized()
        for owner in owners where owner != user {
            let outlets = server.sessions.outlets(of: owner, except: nil)
            if !outlets.isEmpty { UpdatePush.send(update, to: outlets) }
        }
    }
}

extension ServerContext {
    /// A session's connection closed: it gets no more pushes, and a user online whose last session here it was is
    /// offline from now, told as `account.updateStatus(offline: true)` would tell it.
    func sessionClosed(_ outlet: SessionOutlet) {
        let user = sessions.user(of: outlet)
        sessions.detach(outlet)
        let now = self.now
        guard let user, !sessions.hasSessions(user), case .online? = presence.status(of: user, now: now) else { return }
        let status = PresenceRegistry.Status.offline(wasOnline: now)
        guard presence.set(status, for: user, now: now), statusRate.admits(user: user, now: monotonicNow) else { return }
        Task { await PresenceChanges.tell(user, status, server: self) }
    }
}

extension ServerContext {
    /// A user as `viewer` sees it, with the status this process knows (the answers that name a user on request:
    /// `users.getUsers`, `users.getFullUser`, `contacts.resolveUsername`).
    func rendered(_ user: UserRecord, viewer: Int64, link: ContactLink = .none) -> API.User {
        TLRendering.user(user, viewer: viewer, status: PresenceRegistry.rendered(presence.status(of: user.id, now: now)), link: link)
    }
}
