import Foundation
import Postbox
import TL

/// What one drained batch of the account's queue computes, without I/O: each input through the sequencer, the
/// performed log entries' results joined with it, and the mutation that writes all of it with the new cursor in one
/// transaction (TelegramCore's `AccountStateManager` batch, as a value). `AccountStateManager` feeds it from its queue
/// and its tasks; the deterministic simulation feeds it from a seeded schedule, so both commit exactly the same way.
package struct AccountBatch: Sendable {
    /// What the sequencer takes, and what a performed log entry gave.
    package enum Input: Sendable {
        case push([UInt8])
        /// A new session (its number; nil: the store's state was reloaded and no session covers it).
        case sessionChanged(Int?)
        /// A difference and the number of the session that answered it.
        case difference(API.updates.Difference, session: Int)
        case differenceFailed(RPCError)
        case channelDifference(Int64, API.updates.ChannelDifference)
        case channelDifferenceFailed(Int64, RPCError)
        case sent(API.Updates, API.functions.messages.SendMessage?)
        case affected(pts: Int32, count: Int32, channel: Int64?)
        case timers
        /// An operation-log entry was performed: its result is committed with the entry's removal.
        case logged(OperationLogEntry, LoggedResult)

        /// An answer to a difference request (it belongs to the sequencer that asked).
        var isDifferenceAnswer: Bool {
            switch self {
            case .difference, .differenceFailed, .channelDifference, .channelDifferenceFailed: true
            default: false
            }
        }

        /// Session changes and difference answers go before what is queued (TelegramCore's `.first` position).
        var goesFirst: Bool {
            switch self {
            case .sessionChanged, .difference, .differenceFailed, .channelDifference, .channelDifferenceFailed: true
            default: false
            }
        }
    }

    /// A batch ready to write: `mutation` in one transaction; then `outputs` are executed and `refusedChanges`
    /// reported. `awaitedCopies` is the batcher's state once the write succeeded (`committed`).
    package struct Prepared: Sendable {
        package let outputs: [SequencerOutput]
        package let mutation: AccountMutation
        package let state: SyncState
        package let refusedChanges: [(change: AccountChange, error: String)]
        /// The sends this batch settles: refused for good, or their server copies stored in place of the local ones
        /// (the events `sendFailed` and `sendSucceeded`, once written).
        package let sends: [SendOutcome]
        let awaitedCopies: [MessageID: AwaitedCopy]
    }

    /// What the server made of a queued send.
    package enum SendOutcome: Equatable, Sendable {
        case sent(local: MessageID, server: MessageID?)
        case failed(local: MessageID, error: String)
    }

    package private(set) var sequencer: UpdateSequencer
    /// Confirmed sends whose server copies are held back, by server copy (`AwaitedCopy`).
    private var awaitedCopies: [MessageID: AwaitedCopy] = [:]

    package init(sequencer: UpdateSequencer) {
        self.sequencer = sequencer
    }

    var selfID: Int64 { sequencer.configuration.selfID }

    /// The sequencer restarts (from the stored cursor after a failed write); awaited copies are kept.
    package mutating func restart(_ sequencer: UpdateSequencer) {
        self.sequencer = sequencer
    }

    /// The sequencer's first outputs (the difference a start asks for).
    package mutating func start(now: Double) -> [SequencerOutput] { sequencer.start(now: now) }

    /// The start as a batch, for a caller that writes every batch (the simulation).
    package mutating func started(now: Double) -> Prepared { mutation(sequencer.start(now: now), logged: LoggedOutcomes()) }

    /// Runs `inputs` through the sequencer and builds the batch's mutation. `viewedChannels` is asked only for a
    /// session change (the channels an open history view shows are caught up with it).
    package mutating func prepare(_ inputs: [Input], now: Double, viewedChannels: () -> Set<Int64>) -> Prepared {
        var outputs: [SequencerOutput] = []
        var logged = LoggedOutcomes()
        for input in inputs {
            switch input {
            case let .logged(log, result):
                var awaited: AwaitedCopy?
                switch result {
                case let .sent(updates, request):
                    let send: API.functions.messages.SendMessage? = if case let .message(send) = request { send } else { nil }
                    outputs += sequencer.sent(updates, request: send, now: now)
                    awaited = OutboxEntry.serverCopy(of: updates, request: request, selfID: selfID)
                        .map { AwaitedCopy(local: OutboxEntry.localMessageID(of: log), server: $0) }
                case let .updates(updates): outputs += sequencer.sent(updates, request: nil, now: now)
                case let .affected(pts, count, channel): outputs += sequencer.affected(pts: pts, count: count, channel: channel, now: now)
                case let .profile(user): logged.profiles.append(user)
                case .done: break
                case let .refused(error):
                    logged.refuse(log, error: error)
                    if log.tag == OutboxEntry.sendTag {
                        logged.sends.append(.failed(local: OutboxEntry.localMessageID(of: log), error: error ?? "UNREADABLE_ENTRY"))
                    }
                    continue
                }
                logged.completed.append((log, awaited))
            case let .push(bytes):
                guard let updates = try? API.Updates.deserialize(bytes) else {
                    outputs += sequencer.sessionChanged(now: now)   // undecodable: only a difference can say what it held
                    continue
                }
                outputs += sequencer.push(updates, now: now)
            case let .sessionChanged(session):
                outputs += sequencer.sessionChanged(session: session, viewedChannels: viewedChannels(), now: now)
            case let .difference(difference, session): outputs += sequencer.differenceReceived(difference, session: session, now: now)
            case let .differenceFailed(error): outputs += sequencer.differenceFailed(error, now: now)
            case let .channelDifference(channel, difference): outputs += sequencer.channelDifferenceReceived(channel, difference, now: now)
            case let .channelDifferenceFailed(channel, error): outputs += sequencer.channelDifferenceFailed(channel, error, now: now)
            case let .sent(result, request): outputs += sequencer.sent(result, request: request, now: now)
            case let .affected(pts, count, channel): outputs += sequencer.affected(pts: pts, count: count, channel: channel, now: now)
            case .timers: outputs += sequencer.fireTimers(now: now)
            }
        }
        return mutation(outputs, logged: logged)
    }

    /// The batch's mutation. A send whose server copy this batch does not settle keeps its local copy until one does
    /// (`AwaitedCopy`); every batch settles the awaited copies it stores or moves past.
    private func mutation(_ outputs: [SequencerOutput], logged: LoggedOutcomes) -> Prepared {
        let state = sequencer.state
        var mutation = AccountMutation(outputs, state: state)
        var awaited = awaitedCopies
        // A send succeeds, for the app, in the batch that stores its server copy in place of the local one.
        var sends = logged.sends
        for (entry, copy) in logged.completed {
            if let copy, !copy.isSettled(by: mutation, state: state) {
                awaited[copy.server.id] = copy
            } else if entry.tag == OutboxEntry.sendTag {
                sends.append(.sent(local: OutboxEntry.localMessageID(of: entry), server: copy?.server.id))
            }
            mutation.complete(entry, keepingLocal: copy.map { awaited[$0.server.id] != nil } ?? false)
        }
        for (server, copy) in awaited where copy.isSettled(by: mutation, state: state) {
            mutation.settledLocalCopies.append(copy.local)
            awaited[server] = nil
            sends.append(.sent(local: copy.local, server: copy.server.id))
        }
        logged.record(in: &mutation)
        let refused = logged.refusedChanges.map { (change: $0.0.change, error: $0.error ?? "UNREADABLE_ENTRY") }
        return Prepared(outputs: outputs, mutation: mutation, state: state, refusedChanges: refused, sends: sends,
                        awaitedCopies: awaited)
    }

    /// `prepared` was written: its awaited copies are the ones to settle from now on.
    package mutating func committed(_ prepared: Prepared) {
        awaitedCopies = prepared.awaitedCopies
    }
}
