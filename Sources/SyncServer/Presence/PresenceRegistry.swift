import Synchronization
import TL

/// Who is online (core.telegram.org/api/offline: `account.updateStatus`, `userStatusOnline` with `expires`,
/// `userStatusOffline` with `was_online`), kept in this process's memory: a status says what is now, so nothing of it
/// is logged or stored, and a user never seen reads as "recently".
final class PresenceRegistry: Sendable {
    enum Status: Sendable, Equatable {
        case online(expires: Int32)
        case offline(wasOnline: Int32)
    }

    /// How long `account.updateStatus(offline: false)` keeps a user online without another call (clients call it
    /// every few minutes while in the foreground).
    static let onlinePeriod: Int32 = 300

    private let statuses = Mutex<[Int64: Status]>([:])

    /// The status at `now`: an online status past its expiry is offline since then.
    func status(of user: Int64, now: Int32) -> Status? {
        statuses.withLock { statuses in
            guard let status = statuses[user] else { return nil }
            if case let .online(expires) = status, expires <= now { return .offline(wasOnline: expires) }
            return status
        }
    }

    /// Sets `user`'s status; true when it went from offline (or unknown) to online or back, what others are told of.
    func set(_ status: Status, for user: Int64, now: Int32) -> Bool {
        statuses.withLock { statuses in
            let before = statuses[user].map { current -> Bool in
                if case let .online(expires) = current { expires > now } else { false }
            }
            statuses[user] = status
            let isOnline = if case .online = status { true } else { false }
            return before != isOnline
        }
    }

    /// `status` as layer 229 renders it; unknown users are "recently", as Telegram shows users who hide it.
    static func rendered(_ status: Status?) -> API.UserStatus {
        switch status {
        case let .online(expires)?: .userStatusOnline(.init(expires: expires))
        case let .offline(wasOnline)?: .userStatusOffline(.init(wasOnline: wasOnline))
        case nil: .userStatusRecently(.init())
        }
    }
}
