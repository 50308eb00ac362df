import Synchronization
import TL

/// Who is online (core.telegram.org/api/offline: `account.updateStatus`, `userStatusOnline` with `expires`,
/// `userStatusOffline` with `was_online`), as this process knows it: the statuses stored in the database
/// (`PresenceStorageWriter`, every process's) kept in memory, where every rendering of a user reads them. A status
/// is not logged (it says what is now), and a user never seen reads as "recently".
final class PresenceRegistry: Sendable {
    enum Status: Sendable, Equatable {
        case online(expires: Int32)
        case offline(wasOnline: Int32)

        init(_ stored: StoredUserStatus) {
            self = stored.online ? .online(expires: stored.until) : .offline(wasOnline: stored.until)
        }

        func stored(origin: Int64) -> StoredUserStatus {
            switch self {
            case let .online(expires): StoredUserStatus(online: true, until: expires, origin: origin)
            case let .offline(wasOnline): StoredUserStatus(online: false, until: wasOnline, origin: origin)
            }
        }
    }

    /// An online status renewed by less than this many seconds is not stored again (clients renew every minute or
    /// so; other processes see the user online until the stored expiry, at most this much earlier than here).
    static let renewalStep: Int32 = 60

    /// Statuses read back at start: those of users seen in the last week, at most this many.
    static let loadedAtStart = 100_000
    static let loadedPeriod: Int32 = 7 * 86_400

    /// How long `account.updateStatus(offline: false)` keeps a user online without another call (clients call it
    /// every few minutes while in the foreground).
    static let onlinePeriod: Int32 = 300

    /// Each known user's status and the process that set it (`ServerContext.processOrigin`).
    private let statuses = Mutex<[Int64: (status: Status, origin: Int64)]>([:])

    /// The status at `now`: an online status past its expiry is offline since then.
    func status(of user: Int64, now: Int32) -> Status? {
        statuses.withLock { statuses in
            guard let status = statuses[user]?.status else { return nil }
            if case let .online(expires) = status, expires <= now { return .offline(wasOnline: expires) }
            return status
        }
    }

    /// Sets `user`'s status as `origin` saw it; `flipped` when it went from offline (or unknown) to online or back
    /// (what others are told of), `worthStoring` when it flipped, moved an online expiry by `renewalStep` or more, or
    /// another process had set the status before (the process that saw the user last is the one that may later set
    /// the user offline).
    func set(_ status: Status, for user: Int64, now: Int32, origin: Int64) -> (flipped: Bool, worthStoring: Bool) {
        statuses.withLock { statuses in
            let previous = statuses[user]
            let before = previous.map { current -> Bool in
                if case let .online(expires) = current.status { expires > now } else { false }
            }
            statuses[user] = (status, origin)
            let isOnline = if case .online = status { true } else { false }
            let flipped = before != isOnline
            guard !flipped, previous?.origin == origin else { return (flipped, true) }
            if case let .online(old)? = previous?.status, case let .online(new) = status {
                return (false, new - old >= Self.renewalStep)
            }
            return (false, false)
        }
    }

    /// Statuses read from the database at start.
    func load(_ rows: [(user: Int64, status: StoredUserStatus)]) {
        statuses.withLock { statuses in
            for row in rows where statuses[row.user] == nil {
                statuses[row.user] = (Status(row.status), row.status.origin)
            }
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
