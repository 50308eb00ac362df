import Foundation
import MTProtoNIO
import Postbox
import TL

/// Two processes on one account directory (an app and its extension): the one holding `MasterLease` syncs with the
/// network; the other follows its commits (Postbox's external-commit poller reloads its views), queues its sends and
/// read marks into the shared operation log for the master to perform, makes only plain calls itself (inside
/// `invokeWithoutUpdates`: its sessions get no pushes), and takes over within a tenth of a second of the master
/// ending, however it ends. The store's master client id says which instance syncs.
extension Account {
    /// Becomes the master if no live instance is, else a follower that keeps trying.
    func claim() async {
        watchForOtherProcesses()
        if lease.tryAcquire() {
            await becomeMaster()
        } else {
            await becomeFollower()
        }
    }

    /// Another process's commits reach this one's views: told by the platform where it can (Linux inotify on the
    /// store's directory, with a check a second as a backstop), so that an idle app wakes for nothing; polled every
    /// 25 ms otherwise.
    private func watchForOtherProcesses() {
        #if canImport(Glibc)
        let directory = (postbox.path as NSString).deletingLastPathComponent
        if environment.watchesFiles, let changes = DirectoryChanges.stream(directory.isEmpty ? "." : directory) {
            postbox.startWatchingForExternalCommits(every: .seconds(1), fullCheckEvery: 1, changes: changes, waitingWith: environment.sleep)
            return
        }
        #endif
        postbox.startWatchingForExternalCommits(waitingWith: environment.sleep)
    }

    private func becomeFollower() async {
        isMaster = false
        broadcast.yield(.roleChanged(isMaster: false))
        await network.setPushesWanted(false)
        user = await storedLogin()
        // Its own views' history holes it fills itself (plain getHistory calls; the writes do not touch the cursor).
        if user != nil {
            let filler = HistoryHoleFiller(postbox: postbox, network: network)
            await filler.start()
            holes = filler
        }
        follower = Task { [weak self, environment] in
            while !Task.isCancelled {
                try? await environment.sleep(.milliseconds(100))
                guard let self, await self.tryTakeOver() else { continue }
                return
            }
        }
    }

    /// True when there is nothing more to try (this instance is master now, or closed).
    private func tryTakeOver() async -> Bool {
        if closed { return true }
        guard lease.tryAcquire() else { return false }
        try? await network.reloadState()   // the master may have changed keys or logins meanwhile
        await becomeMaster()
        return true
    }

    private func becomeMaster() async {
        isMaster = true
        broadcast.yield(.roleChanged(isMaster: true))
        follower = nil
        await holes?.stop()
        holes = nil
        await network.setPushesWanted(true)
        let id = clientID
        _ = try? await postbox.transaction { try $0.setMasterClientID(id) }
        if let user = await storedLogin() { await startSync(as: user) }
    }

    /// The stored self, if the network state's home key is still logged in as that user.
    private func storedLogin() async -> API.User.User? {
        guard let stored = try? await postbox.read({ try $0.preference(Self.selfKey) }),
              case let .user(user) = try? API.User.deserialize(stored),
              await network.networkState.keys[await network.masterDC]?.userID == user.id else { return nil }
        return user
    }
}
