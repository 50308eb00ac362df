import Foundation
import MTProto
import MTProtoNIO
import Postbox
import TL

/// Why an account call was refused.
public enum AccountError: Error, Equatable, Sendable {
    /// Sending to (or reading) this kind of peer is not supported.
    case unsupportedPeer(String)
    /// The call needs a logged-in account.
    case notLoggedIn
    /// The account was closed.
    case closed
    /// Another process on the same directory syncs the account (it holds `master.lock`); this one follows its
    /// commits and takes over when it ends. Logging in is the syncing process's.
    case notMaster
    /// The message is not in the store (a forward copies what the store holds).
    case unknownMessage(MessageID)
    /// The message has no photo or document to download.
    case noMedia(MessageID)
}

/// What performing an operation-log entry gave, for the transaction that removes the entry.
package enum LoggedResult: Sendable {
    /// A send's `Updates`, joined with its request by the sequencer.
    case sent(API.Updates, OutboxEntry.Request)
    /// `messages.affected*` counters (a read of a private chat or group moves the common pts).
    case affected(pts: Int32, count: Int32, channel: Int64?)
    /// Updates answering an account change (a pin, an edit, a contact), for the sequencer.
    case updates(API.Updates)
    /// The account's user as a profile change left it: stored, and kept as the logged-in user.
    case profile(API.User)
    /// Nothing for the sequencer (a channel read answers a Bool).
    case done
    /// Refused for good (the error's name, nil for an entry this build cannot read): a send's local copy is marked
    /// failed, an account change rolled back; the entry is not retried.
    case refused(String?)
}

/// The operation log's workers (TelegramCore's pending-message and read-state managers, on Postbox's log): `send`
/// and `markRead` write their local effect and a log entry in one transaction, so it shows at once and survives a
/// crash; one worker per tag performs the entries in merged order, retrying transient failures with backoff (the
/// entry stays until done; a send's fixed `random_id` makes a resend after a lost answer the same message on the
/// server); the result goes through the sequencer and is committed with the entry's removal. Inbound updates never
/// wait for the log: only each result's commit joins the account's queue.
extension AccountStateManager {
    /// Queues `text` for `peer`, as a reply to message `replyTo` of the chat if given; returns the local message's id
    /// (namespace `OutboxEntry.localMessages`).
    @discardableResult
    public func send(_ text: String, to peer: API.InputPeer, replyTo: Int32? = nil) async throws -> MessageID {
        let id = try await Self.queueSend(text, to: peer, replyTo: replyTo, selfID: sequencerSelfID, in: postbox,
                                          environment: network.environment)
        wakeLogWorker(OutboxEntry.sendTag)
        return id
    }

    /// Marks `peer`'s history read up to `maxID` here at once (unread count included) and tells the server through the
    /// log (`messages.readHistory`, or `channels.readHistory` for a channel).
    public func markRead(_ peer: API.InputPeer, upTo maxID: Int32) async throws {
        try await Self.queueRead(peer, upTo: maxID, selfID: sequencerSelfID, in: postbox)
        wakeLogWorker(ReadEntry.tag)
    }

    /// A send's local message and log entry, in one transaction: what `send` writes, and what a process that does
    /// not sync writes for the one that does (which hears of it as an external commit).
    package static func queueSend(_ text: String, to peer: API.InputPeer, replyTo: Int32? = nil, selfID: Int64, in postbox: Postbox,
                          environment: SyncEnvironment) async throws -> MessageID {
        guard let peerID = OutboxEntry.peer(of: peer, selfID: selfID) else { throw AccountError.unsupportedPeer("\(peer)") }
        let request = API.functions.messages.SendMessage(
            peer: peer, replyTo: replyTo.map { .inputReplyToMessage(.init(replyToMsgId: $0)) }, message: text,
            randomId: environment.random.int64(in: 1...Int64.max))
        let contents = request.serialized()
        let date = environment.unixTime
        let (entry, _) = try await postbox.transaction { transaction in
            let entry = try transaction.appendOperation(peer: peerID, tag: OutboxEntry.sendTag, contents: contents)
            try transaction.addMessages([Message(
                id: MessageID(peer: peerID, namespace: OutboxEntry.localMessages, id: entry.localIndex), timestamp: date,
                flags: [.unsent], author: StoreMapping.user(selfID), text: text, attributes: contents,
                reply: replyTo.map { ReplyHeader(messageID: $0) })])
            return entry
        }
        return MessageID(peer: peerID, namespace: OutboxEntry.localMessages, id: entry.localIndex)
    }

    /// A photo or document already uploaded, queued as `messages.sendMedia` with a local copy showing the caption (as
    /// `queueSend`).
    static func queueMedia(_ request: API.functions.messages.SendMedia, selfID: Int64, in postbox: Postbox,
                           environment: SyncEnvironment) async throws -> MessageID {
        guard let peerID = OutboxEntry.peer(of: request.peer, selfID: selfID) else { throw AccountError.unsupportedPeer("\(request.peer)") }
        let contents = request.serialized()
        let date = environment.unixTime
        let (entry, _) = try await postbox.transaction { transaction in
            let entry = try transaction.appendOperation(peer: peerID, tag: OutboxEntry.sendTag, contents: contents)
            try transaction.addMessages([Message(
                id: MessageID(peer: peerID, namespace: OutboxEntry.localMessages, id: entry.localIndex), timestamp: date,
                flags: [.unsent], author: StoreMapping.user(selfID), text: request.message, attributes: contents)])
            return entry
        }
        return MessageID(peer: peerID, namespace: OutboxEntry.localMessages, id: entry.localIndex)
    }

    /// Forwards of messages `ids` of `source` (each stored here) to `destination`: one entry and one local copy each,
    /// in one transaction, the copies carrying the forward header the server will give them (the first author and
    /// date, unless `dropAuthor`). One entry per message, so that each keeps its own `random_id` and local copy.
    static func queueForward(_ ids: [Int32], from source: API.InputPeer, sourcePeer: PeerID, to destination: API.InputPeer,
                             dropAuthor: Bool, selfID: Int64, in postbox: Postbox, environment: SyncEnvironment) async throws -> [MessageID] {
        guard let peerID = OutboxEntry.peer(of: destination, selfID: selfID) else { throw AccountError.unsupportedPeer("\(destination)") }
        let requests = ids.map { id in
            API.functions.messages.ForwardMessages(dropAuthor: dropAuthor, fromPeer: source, id: [id],
                                                   randomId: [environment.random.int64(in: 1...Int64.max)], toPeer: destination)
        }
        let date = environment.unixTime
        return try await postbox.transaction { transaction in
            var locals: [MessageID] = []
            for request in requests {
                let original = MessageID(peer: sourcePeer, namespace: StoreMapping.cloudMessages, id: request.id[0])
                guard let message = try transaction.message(original) else { throw AccountError.unknownMessage(original) }
                let contents = request.serialized()
                let entry = try transaction.appendOperation(peer: peerID, tag: OutboxEntry.sendTag, contents: contents)
                let local = MessageID(peer: peerID, namespace: OutboxEntry.localMessages, id: entry.localIndex)
                let header = dropAuthor ? nil
                    : message.forward ?? ForwardHeader(author: message.author ?? sourcePeer, date: message.timestamp)
                try transaction.addMessages([Message(id: local, timestamp: date, flags: [.unsent], author: StoreMapping.user(selfID),
                                                     text: message.text, attributes: contents, forward: header)])
                locals.append(local)
            }
            return locals
        }.result
    }

    /// A read mark's local effect and log entry, in one transaction (as `queueSend`).
    static func queueRead(_ peer: API.InputPeer, upTo maxID: Int32, selfID: Int64, in postbox: Postbox) async throws {
        guard let entry = ReadEntry(peer: peer, maxID: maxID, selfID: selfID) else {
            throw AccountError.unsupportedPeer("\(peer)")
        }
        _ = try await postbox.transaction { transaction in
            try transaction.applyIncomingReadMaxID(entry.peer, namespace: StoreMapping.cloudMessages, maxID: maxID)
            try transaction.appendOperation(peer: entry.peer, tag: ReadEntry.tag, contents: entry.contents)
        }
    }

    /// Wakes `tag`'s worker, or, when it is not waiting yet, tells it not to: between its read that found no entry
    /// and its wait, a new entry's wake-up would otherwise be lost and the entry left until the next one (the fault
    /// simulation found an outbox that never drained this way).
    func wakeLogWorker(_ tag: Int32) {
        if let waiter = logWakeUps.removeValue(forKey: tag) { waiter.resume() } else { logWokenEarly.insert(tag) }
    }

    /// Performs the oldest entry of `tag` until none is left, then waits to be woken.
    func logWorker(tag: Int32) async {
        while !stopped {
            let next = (try? await postbox.read { try $0.operations(tag: tag, limit: 1) })?.first
            guard let next else {
                if logWokenEarly.remove(tag) == nil { await withCheckedContinuation { logWakeUps[tag] = $0 } }
                continue
            }
            var failures = 0
            while !stopped {
                do {
                    await finish(next, try await performer.perform(next))
                    break
                } catch let MTProtoClientError.rpc(error) where timing.retryDelay(error, failures: failures) == nil {
                    await finish(next, .refused(error.message))   // PEER_ID_INVALID, MESSAGE_TOO_LONG, …
                    break
                } catch {
                    if error is CancellationError || stopped { return }
                    let delay = timing.retryDelay(AccountStateManager.rpcError(error), failures: failures) ?? timing.retryBase
                    failures += 1
                    try? await network.environment.sleep(seconds: delay)
                }
            }
        }
    }

    func finish(_ log: OperationLogEntry, _ result: LoggedResult) async {
        await withCheckedContinuation { done in enqueue(.logged(log, result, done)) }
        if log.tag == AccountChangeEntry.tag { changeInFlight.ended(log.mergedIndex) }
    }
}

/// A read-state change waiting to reach the server: the serialized `messages.readHistory` or `channels.readHistory`.
struct ReadEntry {
    static let tag: Int32 = 2

    let peer: PeerID
    let contents: [UInt8]

    init?(peer input: API.InputPeer, maxID: Int32, selfID: Int64) {
        guard let peer = OutboxEntry.peer(of: input, selfID: selfID) else { return nil }
        self.peer = peer
        if case let .inputPeerChannel(channel) = input {
            contents = API.functions.channels.ReadHistory(
                channel: .inputChannel(.init(channelId: channel.channelId, accessHash: channel.accessHash)), maxId: maxID).serialized()
        } else {
            contents = API.functions.messages.ReadHistory(peer: input, maxId: maxID).serialized()
        }
    }

    enum Request {
        case messages(API.functions.messages.ReadHistory)
        case channel(API.functions.channels.ReadHistory)
    }

    static func request(_ contents: [UInt8]) -> Request? {
        if let request = try? API.functions.messages.ReadHistory.deserialize(contents) { return .messages(request) }
        if let request = try? API.functions.channels.ReadHistory.deserialize(contents) { return .channel(request) }
        return nil
    }
}
