import MTProtoNIO
import TL

/// A change of a user's status told to everyone with a dialog with the user or the user among their contacts
/// (`Profiles.audience`) as an `updateShort(updateUserStatus)` — no seq: a status is not logged, and whoever missed it
/// sees the status in the next `user` the server gives them. Each process tells its own sessions: the process that saw
/// the change, and every other one when the stored status is announced (`CrossProcessPush`).
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
    /// This process in the statuses it stores (`CommitFeed.origin`; 0 when it is the only process).
    var processOrigin: Int64 { storage.commitFeed?.origin ?? 0 }

    /// `user` set a status here (`account.updateStatus`): kept in memory, stored for every process when it flipped or
    /// moved its expiry enough, and told to whoever sees the user when it flipped (at most as often as `statusRate`).
    func setStatus(_ status: PresenceRegistry.Status, of user: Int64) async {
        let change = presence.set(status, for: user, now: now, origin: processOrigin)
        if change.worthStoring {
            let stored = status.stored(origin: processOrigin)
            do {
                try await storage.write { tx in try tx.setUserStatus(stored, user: user) }
            } catch {
                logger.warning("cannot store a status", metadata: ["user": "\(user)", "error": "\(error)"])
            }
        }
        if change.flipped, statusRate.admits(user: user, now: monotonicNow) {
            await PresenceChanges.tell(user, status, server: self)
        }
    }

    /// Another process stored a status: shown here, and told to this process's sessions when it flipped.
    func statusAnnounced(_ stored: StoredUserStatus, of user: Int64) {
        guard stored.origin != processOrigin else { return }
        let status = PresenceRegistry.Status(stored)
        guard presence.set(status, for: user, now: now, origin: stored.origin).flipped, statusRate.admits(user: user, now: monotonicNow) else { return }
        Task { await PresenceChanges.tell(user, status, server: self) }
    }

    /// Reads the statuses of users seen lately, before the first client is served.
    func loadStatuses() async {
        do {
            let since = now - PresenceRegistry.loadedPeriod
            presence.load(try await storage.readLatest { tx in try tx.userStatuses(since: since, limit: PresenceRegistry.loadedAtStart) })
        } catch {
            logger.warning("cannot read users' statuses; they show as recently until they change", metadata: ["error": "\(error)"])
        }
    }

    /// A session's connection closed: it gets no more pushes, and a user online whose last session here it was is
    /// offline from now — unless another process saw the user since (the stored status is that process's and still
    /// online), or the server is stopping (its users reconnect elsewhere) — told as `account.updateStatus(offline:
    /// true)` would tell it.
    func sessionClosed(_ outlet: SessionOutlet) {
        let user = sessions.user(of: outlet)
        sessions.detach(outlet)
        let now = self.now
        guard let user, !stopping.load(ordering: .relaxed), !sessions.hasSessions(user),
              case .online? = presence.status(of: user, now: now) else { return }
        Task { await wentOffline(user, at: now) }
    }

    private func wentOffline(_ user: Int64, at now: Int32) async {
        let origin = processOrigin
        let offline = PresenceRegistry.Status.offline(wasOnline: now)
        let stored: Bool
        do {
            stored = try await storage.write { tx -> Bool in
                if let current = try tx.userStatus(user: user), current.origin != origin, current.online, current.until > now { return false }
                try tx.setUserStatus(offline.stored(origin: origin), user: user)
                return true
            }
        } catch {
            logger.warning("cannot store a status", metadata: ["user": "\(user)", "error": "\(error)"])
            stored = true   // this process's view still changes
        }
        guard stored, !sessions.hasSessions(user), presence.set(offline, for: user, now: now, origin: origin).flipped,
              statusRate.admits(user: user, now: monotonicNow) else { return }
        await PresenceChanges.tell(user, offline, server: self)
    }

    /// A user as `viewer` sees it, with the status this process knows (the answers that name a user on request:
    /// `users.getUsers`, `users.getFullUser`, `contacts.resolveUsername`).
    func rendered(_ user: UserRecord, viewer: Int64, link: ContactLink = .none) -> API.User {
        TLRendering.user(user, viewer: viewer, status: PresenceRegistry.rendered(presence.status(of: user.id, now: now)), link: link)
    }
}
