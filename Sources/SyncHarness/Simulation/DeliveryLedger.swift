import Postbox
import Synchronization
import SyncEngine
import TL

/// What one user's account delivered during a run, across its restarts: every new message it announced (each must be
/// announced once), the channels it reset, and its committed state after each event (pts never go back).
final class DeliveryLedger: Sendable {
    private struct Entries {
        var delivered: Set<MessageID> = []
        var duplicates: [MessageID] = []
        var resetChannels: Set<Int64> = []
        var tooLong = false
        var lastState: SyncState?
        var regressions: [String] = []
        var logouts: [LogoutReason] = []
    }

    private let entries = Mutex(Entries())

    func record(_ event: AccountEvent) {
        entries.withLock { entries in
            switch event {
            case let .delivered(update):
                let message: API.Message
                switch update {
                case let .updateNewMessage(value): message = value.message
                case let .updateNewChannelMessage(value): message = value.message
                default: return
                }
                guard let id = StoreMapping.message(message)?.id else { return }
                if !entries.delivered.insert(id).inserted { entries.duplicates.append(id) }
            case let .channelReset(channel): entries.resetChannels.insert(channel)
            case .differenceTooLong: entries.tooLong = true
            case let .loggedOut(reason): entries.logouts.append(reason)
            case .changeRefused: break   // the simulation makes no account changes
            case .sendSucceeded, .sendFailed, .messagesDeleted, .roleChanged: break   // counted by what is delivered
            }
        }
    }

    /// A committed state seen now: no counter may be behind the last one seen.
    func observe(_ state: SyncState) {
        entries.withLock { entries in
            if let last = entries.lastState {
                if state.pts < last.pts { entries.regressions.append("pts \(last.pts) → \(state.pts)") }
                if state.qts < last.qts { entries.regressions.append("qts \(last.qts) → \(state.qts)") }
                for (channel, pts) in last.channels where (state.channels[channel] ?? 0) < pts {
                    entries.regressions.append("channel \(channel) pts \(pts) → \(state.channels[channel] ?? 0)")
                }
            }
            entries.lastState = state
        }
    }

    var delivered: Set<MessageID> { entries.withLock { $0.delivered } }
    var duplicates: [MessageID] { entries.withLock { $0.duplicates } }
    var resetChannels: Set<Int64> { entries.withLock { $0.resetChannels } }
    var sawDifferenceTooLong: Bool { entries.withLock { $0.tooLong } }
    var regressions: [String] { entries.withLock { $0.regressions } }
    var logouts: [LogoutReason] { entries.withLock { $0.logouts } }
}
