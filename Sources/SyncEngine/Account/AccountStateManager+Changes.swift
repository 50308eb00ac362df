import Foundation
import MTProto
import MTProtoNIO
import Postbox
import Synchronization
import TL

/// Which account changes may already have reached the server, so that a change queued meanwhile never replaces one
/// unseen: the one being sent (set inside the write transaction that picks it, so a queueing transaction, serialized
/// with it, either removed the entry first or sees the mark), and those whose call failed in a way that does not say
/// whether the server executed it (a timeout).
final class ChangeInFlight: Sendable {
    private struct Marks {
        var sending: Int64?
        var attempted: Set<Int64> = []
    }

    private let marks = Mutex(Marks())
    /// The entry being sent.
    var sending: Int64? { marks.withLock { $0.sending } }
    func send(_ index: Int64?) { marks.withLock { $0.sending = index } }
    /// Its call failed: it may have been executed, so replacing it must still send the replacement.
    func failed(_ index: Int64) { marks.withLock { $0.sending = nil; $0.attempted.insert(index) } }
    func wasAttempted(_ index: Int64) -> Bool { marks.withLock { $0.attempted.contains(index) } }
    /// Its entry left the log.
    func ended(_ index: Int64) { marks.withLock { $0.sending = nil; $0.attempted.remove(index) } }
}

/// Account changes through the operation log (`AccountChange`): queued with their local effect in one transaction,
/// merged with a waiting change of the same key, sent in order by one worker, rolled back when refused.
extension AccountStateManager {
    /// Applies `change` to the store at once and logs it for the server (see `AccountChange`).
    public func change(_ change: AccountChange) async throws {
        try await Self.queueChange(change, selfID: sequencerSelfID, in: postbox, environment: network.environment,
                                   merging: changeInFlight)
        wakeLogWorker(AccountChangeEntry.tag)
    }

    /// A change's local effect and log entry, in one transaction. With `merging` (the syncing process, which knows
    /// which entry is in flight), a waiting entry of the same key is replaced, keeping what the store held before it;
    /// when the result puts that back, nothing is logged. Another process only appends.
    static func queueChange(_ change: AccountChange, selfID: Int64, in postbox: Postbox, environment: SyncEnvironment,
                            merging inFlight: ChangeInFlight?) async throws {
        let date = environment.unixTime
        _ = try await postbox.transaction { transaction in
            var entry = AccountChangeEntry(change: change, before: try change.apply(to: transaction, selfID: selfID, date: date))
            var (merged, mayHaveLeft) = (false, false)
            if let inFlight, let key = change.mergeKey {
                for log in try transaction.operations(tag: AccountChangeEntry.tag) where log.mergedIndex != inFlight.sending {
                    guard let waiting = AccountChangeEntry(log.contents), waiting.change.mergeKey == key else { continue }
                    try transaction.removeOperation(peer: log.peer, tag: log.tag, localIndex: log.localIndex)
                    entry.before = waiting.before
                    merged = true
                    mayHaveLeft = mayHaveLeft || inFlight.wasAttempted(log.mergedIndex)
                }
            }
            if merged && !mayHaveLeft && entry.undoesItself { return }
            try transaction.appendOperation(peer: change.peers.first ?? StoreMapping.user(selfID), tag: AccountChangeEntry.tag,
                                            contents: entry.contents)
        }
    }

    /// Sends the oldest change until none is left, then waits to be woken. A change is taken only while the network
    /// can carry it (`ConnectionManager.isReadyToSend`): one that waits unsent can still be merged with a later one.
    func changeWorker() async {
        let tag = AccountChangeEntry.tag
        var (failures, current): (Int, Int64?) = (0, nil)
        while !stopped {
            guard (try? await postbox.read { try $0.operations(tag: tag, limit: 1) })?.isEmpty == false else {
                if logWokenEarly.remove(tag) == nil { await withCheckedContinuation { logWakeUps[tag] = $0 } }
                continue
            }
            guard await network.isReadyToSend else {
                try? await network.environment.sleep(.milliseconds(100))
                continue
            }
            guard let next = (try? await nextChange()) ?? nil else { continue }
            if next.mergedIndex != current { (failures, current) = (0, next.mergedIndex) }
            do {
                await finish(next, try await performer.perform(next))
            } catch let MTProtoClientError.rpc(error) where timing.retryDelay(error, failures: failures) == nil {
                await finish(next, .refused(error.message))   // USERNAME_OCCUPIED, MESSAGE_ID_INVALID, …
            } catch {
                changeInFlight.failed(next.mergedIndex)
                if error is CancellationError || stopped { return }
                let delay = timing.retryDelay(AccountStateManager.rpcError(error), failures: failures) ?? timing.retryBase
                failures += 1
                try? await network.environment.sleep(seconds: delay)
            }
        }
    }

    /// The oldest waiting change, marked as being sent in the same (write) transaction.
    private func nextChange() async throws -> OperationLogEntry? {
        let mark = changeInFlight
        return try await postbox.transaction { transaction in
            let next = try transaction.operations(tag: AccountChangeEntry.tag, limit: 1).first
            mark.send(next?.mergedIndex)
            return next
        }.result
    }

}

/// What a drained batch's performed log entries give its transaction and its events.
struct LoggedOutcomes {
    /// Done entries, with a send's server copy when the batch may not store it (`AwaitedCopy`).
    var completed: [(OperationLogEntry, AwaitedCopy?)] = []
    /// Entries refused for good.
    var failed: [OperationLogEntry] = []
    /// Refused account changes (rolled back in the batch, then reported) with the error's name.
    var refusedChanges: [(AccountChangeEntry, error: String?)] = []
    /// The account's user as profile changes left it.
    var profiles: [API.User] = []
    /// Sends refused for good (the batch adds those whose server copies it stores).
    var sends: [AccountBatch.SendOutcome] = []

    mutating func refuse(_ log: OperationLogEntry, error: String?) {
        failed.append(log)
        if log.tag == AccountChangeEntry.tag, let entry = AccountChangeEntry(log.contents) { refusedChanges.append((entry, error)) }
    }

    /// The failures, rollbacks and profile answers, into the batch's mutation (completions are the caller's: they
    /// depend on the awaited copies).
    func record(in mutation: inout AccountMutation) {
        for entry in failed { mutation.fail(entry) }
        mutation.rolledBackChanges += refusedChanges.map(\.0)
        for case let .user(user) in profiles {
            mutation.merge(users: [.user(user)], chats: [])
            mutation.rename(user: user.id, firstName: user.firstName ?? "", lastName: user.lastName ?? "", username: user.username)
        }
    }
}
