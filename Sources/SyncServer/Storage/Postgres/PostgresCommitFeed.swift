import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// What one process learns of the commits of every process sharing its storage.
public enum CommitNotice: Sendable, Equatable {
    /// A committed transaction logged these events; `origin` names the process (`CommitFeed.origin` is this one's).
    case committed(origin: Int64, events: [CommittedEvent])
    /// Announcements may have been missed (the listening connection was lost and is back): whoever follows boxes
    /// must read their logs from where it was.
    case resynchronize
    /// An auth key was logged out: every process drops its sessions and its cached login.
    case loggedOut(authKeyID: UInt64)
    /// A user's profile changed: every process's cache forgets the row.
    case profileChanged(userID: Int64)
    /// A user's status changed (`origin` set it): every other process shows it and tells its sessions.
    case statusChanged(userID: Int64, status: StoredUserStatus)
}

/// Announcements of commits, in commit order (PostgreSQL delivers notifications in the order their transactions
/// committed, which for one box is pts order: its row is locked by each writer until COMMIT).
public final class CommitFeed: Sendable {
    public let origin: Int64
    public let notices: AsyncStream<CommitNotice>
    let continuation: AsyncStream<CommitNotice>.Continuation
    /// Where the notices are produced: a consumer that runs there too takes each one without a thread switch.
    let eventLoop: any EventLoop

    init(origin: Int64, eventLoop: any EventLoop) {
        self.origin = origin
        self.eventLoop = eventLoop
        (notices, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }
}

/// The text of a `pg_notify` announcement: `origin box:id:pts:count …`, with `u` for a user's box, `c` for a
/// channel's and `s` for a user's seq log (then the numbers count seq); several when the events do not fit PostgreSQL's 8,000-byte payload. A box's consecutive events are
/// announced as one range (a batch of 500 sends between two users is two items, not a thousand).
enum CommitAnnouncement {
    static let channel = "synccore_commits"
    static let payloadLimit = 7_900

    static func payloads(_ events: [CommittedEvent], origin: Int64) -> [String] {
        guard !events.isEmpty else { return [] }
        var payloads: [String] = []
        var current = "\(origin)"
        for event in merged(events) {
            let kind = if event.sequenced { "s" } else if case .channel = event.box { "c" } else { "u" }
            let item = " \(kind):\(event.box.id):\(event.pts):\(event.ptsCount)"
            if current.utf8.count + item.utf8.count > payloadLimit {
                payloads.append(current)
                current = "\(origin)"
            }
            current += item
        }
        payloads.append(current)
        return payloads
    }

    /// Events of one box (or seq log) whose ranges follow each other become one event; boxes keep their first event's
    /// place.
    static func merged(_ events: [CommittedEvent]) -> [CommittedEvent] {
        struct Log: Hashable {
            let box: PeerRef
            let sequenced: Bool
        }
        var merged: [CommittedEvent] = []
        var last: [Log: Int] = [:]
        for event in events {
            let log = Log(box: event.box, sequenced: event.sequenced)
            if let index = last[log], merged[index].pts == event.pts - event.ptsCount {
                merged[index] = CommittedEvent(box: event.box, pts: event.pts, ptsCount: merged[index].ptsCount + event.ptsCount,
                                               sequenced: event.sequenced)
            } else {
                last[log] = merged.count
                merged.append(event)
            }
        }
        return merged
    }

    /// The payload announcing that `authKeyID` was logged out: `0 k:<id in hex>`.
    static func loggedOut(_ authKeyID: UInt64) -> String {
        "0 k:\(String(authKeyID, radix: 16))"
    }

    /// The payload announcing that `userID`'s profile changed: `0 p:<id>`.
    static func profileChanged(_ userID: Int64) -> String {
        "0 p:\(userID)"
    }

    /// The payload announcing a user's status: `0 o:<user>:<1 online, 0 offline>:<until>:<origin>`.
    static func statusChanged(_ userID: Int64, _ status: StoredUserStatus) -> String {
        "0 o:\(userID):\(status.online ? 1 : 0):\(status.until):\(status.origin)"
    }

    /// Nil for a payload this build did not write (another version's, or garbage).
    static func parse(_ payload: String) -> CommitNotice? {
        if payload.hasPrefix("0 o:") {
            let fields = payload.dropFirst(4).split(separator: ":")
            guard fields.count == 4, let user = Int64(fields[0]), let online = Int(fields[1]), let until = Int32(fields[2]),
                  let origin = Int64(fields[3]) else { return nil }
            return .statusChanged(userID: user, status: StoredUserStatus(online: online == 1, until: until, origin: origin))
        }
        if payload.hasPrefix("0 k:") {
            return UInt64(payload.dropFirst(4), radix: 16).map { .loggedOut(authKeyID: $0) }
        }
        if payload.hasPrefix("0 p:") {
            return Int64(payload.dropFirst(4)).map { .profileChanged(userID: $0) }
        }
        let parts = payload.split(separator: " ")
        guard let first = parts.first, let origin = Int64(first) else { return nil }
        var events: [CommittedEvent] = []
        for part in parts.dropFirst() {
            let fields = part.split(separator: ":")
            guard fields.count == 4, let id = Int64(fields[1]), let pts = Int32(fields[2]), let count = Int32(fields[3]) else { return nil }
            switch fields[0] {
            case "u": events.append(CommittedEvent(box: .user(id), pts: pts, ptsCount: count))
            case "c": events.append(CommittedEvent(box: .channel(id), pts: pts, ptsCount: count))
            case "s": events.append(CommittedEvent(box: .user(id), pts: pts, ptsCount: count, sequenced: true))
            default: return nil
            }
        }
        return .committed(origin: origin, events: events)
    }
}

/// The log of a connection lost and found again: one warning with the cause when it goes, one notice when it is
/// back (after how long, how many attempts), debug lines between — not one warning per attempt — and the pause
/// between attempts, doubling from 0.2 s to 2 s.
struct ReconnectLog {
    private(set) var lostAt: Double?
    private(set) var attempts = 0

    /// An attempt failed; true for the first (the one to warn about).
    mutating func lost(now: Double) -> Bool {
        attempts += 1
        guard lostAt == nil else { return false }
        lostAt = now
        return true
    }

    /// Connected: how long it was lost and in how many attempts, nil if it was not.
    mutating func back(now: Double) -> (seconds: Double, attempts: Int)? {
        defer { (lostAt, attempts) = (nil, 0) }
        return lostAt.map { (now - $0, attempts) }
    }

    /// Seconds before the next attempt.
    var pause: Double { attempts == 0 ? 0.2 : min(2, 0.2 * Double(1 << min(attempts - 1, 8))) }
}

/// Listens on `synccore_commits` over a connection of its own and reconnects when it is lost (PostgreSQL
/// restarted, the network dropped it), announcing `.resynchronize` each time it is back. What other processes
/// announce is dropped from this process's box-state cache first.
final class PostgresCommitFeed: Sendable {
    let feed: CommitFeed
    var origin: Int64 { feed.origin }
    private let configuration: PostgresConnection.Configuration
    /// How often the listening connection is probed, and how long a probe may go unanswered.
    private let deadline: TimeAmount
    private let boxes: BoxStateCache
    private let users: UserCache
    private let logger: Logger
    /// Its waiting: the pause between reconnections, the probes' interval.
    private let environment: SyncEnvironment
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let listenerUp = ListenerFlag()
    /// Whether the listening connection is up (the metrics' `synccore_postgres_listener_connected`).
    var isListening: Bool { listenerUp.up.load(ordering: .relaxed) }

    private final class ListenerFlag: Sendable {
        let up = Atomic<Bool>(false)
    }

    /// `origin`: this process's random id in announcements (so it skips its own).
    init(configuration: PostgresConnection.Configuration, deadline: TimeAmount, boxes: BoxStateCache, users: UserCache,
         origin: Int64, eventLoop: any EventLoop, environment: SyncEnvironment, logger: Logger) {
        self.environment = environment
        self.configuration = configuration
        self.deadline = deadline
        self.boxes = boxes
        self.users = users
        self.logger = logger
        feed = CommitFeed(origin: origin, eventLoop: eventLoop)
    }

    func start() {
        // On the listening connection's event loop, where postgres-nio receives the notifications.
        let listening = feed.eventLoop.startTask { [configuration, deadline, boxes, users, logger, feed, environment, listenerUp] in
            var connected = false
            var outage = ReconnectLog()
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(on: feed.eventLoop, configuration: configuration, id: 0,
                                                                          logger: logger)
                    let session = PostgresSession(connection: connection, deadline: deadline, logger: logger)
                    let probe = Self.probe(session, every: deadline, environment: environment)
                    defer {
                        probe.cancel()
                        session.closeWithoutWaiting()
                    }
                    try await connection.listen(on: CommitAnnouncement.channel) { notifications in
                        listenerUp.up.store(true, ordering: .relaxed)
                        if let back = outage.back(now: environment.uptime()) {
                            logger.notice("commit feed is back", metadata: [
                                "after": "\(String(format: "%.1f", back.seconds)) s", "attempts": "\(back.attempts)",
                            ])
                        }
                        if connected {
                            boxes.clear()
                            users.clear()
                            feed.continuation.yield(.resynchronize)
                        }
                        connected = true
                        for try await notification in notifications {
                            if let notice = CommitAnnouncement.parse(notification.payload) {
                                if case let .committed(origin, events) = notice, origin != feed.origin {
                                    boxes.othersWrote(events.compactMap { if case let .user(id) = $0.box { id } else { nil } })
                                }
                                if case let .profileChanged(userID) = notice { users.forget([userID]) }
                                feed.continuation.yield(notice)
                            } else {
                                logger.warning("unreadable commit announcement", metadata: ["payload": "\(notification.payload.prefix(80))"])
                            }
                        }
                    }
                } catch {
                    listenerUp.up.store(false, ordering: .relaxed)
                    if Task.isCancelled { break }
                    let cause = "\(PostgresFailure.typed(error))"
                    if outage.lost(now: environment.uptime()) {
                        logger.warning("commit feed lost its connection; reconnecting", metadata: ["cause": "\(cause)"])
                    } else {
                        logger.debug("commit feed still reconnecting", metadata: ["cause": "\(cause)", "attempt": "\(outage.attempts)"])
                    }
                }
                try? await environment.sleep(seconds: outage.pause)
            }
            feed.continuation.finish()
        }
        task.withLock { $0 = listening }
    }

    /// A listening connection only receives, so a PostgreSQL gone without closing its socket would leave it
    /// waiting for notifications forever. A statement every `interval` (its deadline closes the connection when
    /// unanswered) ends the listening then, and the loop reconnects and resynchronizes.
    private static func probe(_ session: PostgresSession, every interval: TimeAmount,
                              environment: SyncEnvironment) -> Task<Void, Never> {
        session.connection.eventLoop.startTask {
            while (try? await environment.sleep(.nanoseconds(interval.nanoseconds))) != nil {
                do {
                    try await session.rows(Prepared<Probe>())
                } catch {
                    try? await session.connection.close()
                    return
                }
            }
        }
    }

    private enum Probe: PostgresSQL { static let sql = "SELECT 1" }

    func stop() async {
        guard let listening = task.withLock({ $0 }) else { return }
        listening.cancel()
        await listening.value
    }
}
