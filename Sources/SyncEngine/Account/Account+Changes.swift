import Postbox
import TL

/// Edits and deletes of messages, and the one path every account change takes (`AccountChange`): shown at once, sent
/// through the operation log by the syncing process (this one, or the one that holds the directory's lease).
extension Account {
    /// Replaces the text of a message of `peer` (`messages.editMessage`). Shown at once; a refusal
    /// (`MESSAGE_AUTHOR_REQUIRED`, `MESSAGE_ID_INVALID`, …) puts the old text back and is reported as
    /// `AccountEvent.changeRefused`.
    public func edit(_ id: Int32, in peer: PeerID, text: String) async throws {
        _ = try await inputPeer(peer)
        try await queue(.edit(MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: id), text: text))
    }

    /// Deletes messages of `peer` (for both sides with `revoke`; a channel's are deleted for everyone). Gone from the
    /// store at once; a refusal puts them back.
    public func delete(_ ids: [Int32], in peer: PeerID, revoke: Bool = true) async throws {
        _ = try await inputPeer(peer)
        guard !ids.isEmpty else { return }
        try await queue(.delete(ids.map { MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: $0) }, revoke: revoke))
    }

    /// Queues `change`: through this process's state manager when it syncs, or written to the store for the syncing
    /// process (which hears of it as an external commit), or for this one's manager once it can start.
    func queue(_ change: AccountChange) async throws {
        guard let manager = try await syncingIfItCanStart() else {
            return try await AccountStateManager.queueChange(change, selfID: try loggedInID(), in: postbox, environment: environment,
                                                             merging: nil)
        }
        try await manager.change(change)
    }

    /// The running update manager; nil in a process that follows another, and when the manager cannot start now (its
    /// start's `updates.getState` failed: offline at a first start or after a logout). What is queued then is written
    /// to the store: the syncing process, or this one once `keepStarting` has started its manager, sends it from the
    /// log as after a restart. (Before, such a send threw the start's error: the fault simulation's seed 173 stopped
    /// on a `timedOut` so.)
    func syncingIfItCanStart() async throws -> AccountStateManager? {
        do {
            return try await syncing()
        } catch AccountError.notMaster {
            return nil
        } catch let error as AccountError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
    }

    /// The logged-in user's id, for work written to the store.
    func loggedInID() throws -> Int64 {
        guard let user, !closed else { throw closed ? AccountError.closed : AccountError.notLoggedIn }
        return user.id
    }
}
