import Foundation
import MTProto
import MTProtoNIO
import Postbox
import TL

public enum AccountError: Error, Equatable, Sendable {
    /// Sending to this kind of peer is not supported.
    case unsupportedPeer(String)
}

/// The outbox (TelegramCore's pending-message manager, on Postbox's operation log): `send` writes the local message
/// and the log entry in one transaction, so the message shows at once and survives a crash; one worker sends the
/// entries in merged order, retrying transient failures with backoff (across restarts: the entry stays until done,
/// and its fixed `random_id` makes a resend after a lost answer the same message on the server); the result goes
/// through the sequencer and is written in the transaction that removes the local copy and the entry. Inbound
/// updates never wait for it: only the result's commit joins the account's queue.
extension AccountStateManager {
    /// Queues `text` for `peer`; returns the local message's id (namespace `OutboxEntry.localMessages`).
    @discardableResult
    public func send(_ text: String, to peer: API.InputPeer) async throws -> MessageID {
        let selfID = sequencerSelfID
        guard let peerID = OutboxEntry.peer(of: peer, selfID: selfID) else { throw AccountError.unsupportedPeer("\(peer)") }
        let request = API.functions.messages.SendMessage(peer: peer, message: text, randomId: .random(in: 1...Int64.max))
        let contents = request.serialized()
        let date = Int32(clamping: Int64(Date().timeIntervalSince1970))
        let (entry, _) = try await postbox.transaction { transaction in
            let entry = try transaction.appendOperation(peer: peerID, tag: OutboxEntry.sendTag, contents: contents)
            try transaction.addMessages([Message(
                id: MessageID(peer: peerID, namespace: OutboxEntry.localMessages, id: entry.localIndex), timestamp: date,
                flags: [.unsent], author: StoreMapping.user(selfID), text: text, attributes: contents)])
            return entry
        }
        outboxWakeUp?.resume()
        outboxWakeUp = nil
        return MessageID(peer: peerID, namespace: OutboxEntry.localMessages, id: entry.localIndex)
    }

    /// Sends the oldest entry until none is left, then waits for `send`.
    func outboxLoop() async {
        while !stopped {
            let next = (try? await postbox.read { try $0.operations(tag: OutboxEntry.sendTag, limit: 1) })?.first
            guard let next else {
                await withCheckedContinuation { outboxWakeUp = $0 }
                continue
            }
            guard let entry = OutboxEntry(next) else {   // damaged: failed, never retried
                await finishSend(nil, next, result: nil)
                continue
            }
            var failures = 0
            while !stopped {
                do {
                    let result = try await network.send(entry.request)
                    await finishSend(entry, next, result: result)
                    break
                } catch let MTProtoClientError.rpc(error) where UpdateSequencer.retryDelay(error, failures: failures) == nil {
                    await finishSend(entry, next, result: nil)   // refused for good (PEER_ID_INVALID, MESSAGE_TOO_LONG, …)
                    break
                } catch {
                    if error is CancellationError || stopped { return }
                    let delay = UpdateSequencer.retryDelay(AccountStateManager.rpcError(error), failures: failures) ?? 1
                    failures += 1
                    try? await Task.sleep(for: .seconds(min(delay, 30)))
                }
            }
        }
    }

    private func finishSend(_ entry: OutboxEntry?, _ log: OperationLogEntry, result: API.Updates?) async {
        await withCheckedContinuation { done in enqueue(.outboxSend(entry, log, result, done)) }
    }
}
