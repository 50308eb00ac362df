import MTProtoNIO
import Synchronization
import TL

/// Pushes what other server processes committed to the sessions connected to this one. The announcements carry
/// only boxes and counters (`CommitFeed`); the updates themselves are read from the boxes' logs, so what a session
/// receives is what `getDifference` would answer, never a guess.
///
/// For every box with a session here, `marks` holds the highest pts whose push this process has settled: its own
/// commits were pushed by their handlers, anything else is read from the log from the mark on. A range the
/// announcements skipped (or all of them after `.resynchronize`, when the listening connection was lost) is read
/// from the log the same way, and a range longer than `maximumRange` becomes `updatesTooLong`, after which the
/// client asks for the difference itself. Seq-log events need no marks: each is pushed with its seq, and one whose
/// announcement was missed is a seq gap to the client, which asks for the difference.
final class CrossProcessPush: Sendable {
    static let maximumRange: Int32 = 1_000
    /// How long a round whose read failed waits before reading again.
    static let retryPause: Duration = .milliseconds(200)

    private struct State {
        var marks: [PeerRef: Int32] = [:]
        var pending: [CommitNotice] = []
        var draining = false
    }

    private let server: ServerContext
    private let feed: CommitFeed
    private let state = Mutex(State())

    init(server: ServerContext, feed: CommitFeed) {
        self.server = server
        self.feed = feed
    }

    /// Follows the feed until it ends (the storage closed); run it on the feed's event loop (`SyncServer`). An
    /// announcement that needs no read (this process's own commits, boxes nobody here follows) is settled at once,
    /// without a task.
    func run() async {
        for await notice in feed.notices {
            if case let .committed(origin, events) = notice, origin != feed.origin {
                let sequenced = events.filter { $0.sequenced && hasSessions($0.box) }
                if !sequenced.isEmpty { feed.eventLoop.startTask { await self.pushSequenced(sequenced) } }
            }
            let work = state.withLock { state -> [PeerRef: PushRange]? in
                state.pending.append(notice)
                return state.draining ? nil : takeWork(&state)
            }
            if let work { feed.eventLoop.startTask { await self.drain(work) } }
        }
    }

    /// Pushes `work`, then the announcements that arrived meanwhile together (one storage read for all), in order,
    /// until none are left.
    private func drain(_ first: [PeerRef: PushRange]) async {
        var next: [PeerRef: PushRange]? = first
        while let work = next {
            await push(work)
            next = state.withLock { takeWork(&$0) }
        }
    }

    /// Settles the pending announcements: the ranges they leave to read, nil when none (then nothing is draining).
    private func takeWork(_ state: inout State) -> [PeerRef: PushRange]? {
        let work = ranges(for: state.pending, marks: &state.marks)
        state.pending.removeAll()
        state.draining = !work.isEmpty
        return work.isEmpty ? nil : work
    }

    /// Reads the ranges' events and pushes them to the sessions here.
    private func push(_ work: [PeerRef: PushRange]) async {
        do {
            // No snapshot needed: logged events never change, and each box's end is fixed before its log is read.
            let bounded = try await bound(work)
            let logs = try await server.storage.events(in: Self.userLogs(bounded))
            let rendered = try await server.storage.readLatest { [self] tx in try render(bounded, logs: logs, in: tx) }
            for (_, result) in rendered {
                for push in result.pushes { UpdatePush.send(push.bytes, to: push.outlets) }
            }
            // A resynchronization read up to the box's pts of the moment: announcements of what it read, still
            // on their way, must not push it again.
            state.withLock { state in
                for (box, result) in rendered {
                    if let mark = state.marks[box] { state.marks[box] = max(mark, result.readUpTo) }
                }
            }
        } catch {
            server.logger.error("cannot read the logs for pushes from other processes", metadata: ["error": "\(error)"])
            // The database refused or could not be reached: read again. Closed, or a row that cannot be read: not.
            switch error as? ServerStorageError {
            case .database?, .unavailable?: break
            default: return
            }
            await readAgainLater(work)
        }
    }

    /// Seq-log events another process committed, each to the sessions here of its user in an `updates` with its seq.
    private func pushSequenced(_ events: [CommittedEvent]) async {
        do {
            let pushes = try await server.storage.readLatest { [self] tx in
                try events.flatMap { event -> [Push] in
                    guard case let .user(user) = event.box else { return [] }
                    let outlets = server.sessions.outlets(of: user, except: nil)
                    guard !outlets.isEmpty else { return [] }
                    return try tx.seqEvents(user: user, afterSeq: event.pts - event.ptsCount, upTo: event.pts).compactMap { logged in
                        guard let update = try? API.Update.deserialize(logged.update) else { return nil }
                        let (users, chats) = try SequencedUpdate.peers(for: update, viewer: user, in: tx)
                        let body = API.Updates.updates(.init(updates: [update], users: users, chats: chats, date: logged.date, seq: logged.seq))
                        return Push(bytes: body.serialized(), outlets: outlets)
                    }
                }
            }
            for push in pushes { UpdatePush.send(push.bytes, to: push.outlets) }
        } catch {
            server.logger.error("cannot read the seq logs for pushes from other processes", metadata: ["error": "\(error)"])
        }
    }

    /// The database failed the round's read (PostgreSQL restarting, a connection lost): nothing of it was pushed,
    /// but its announcements already moved the marks past it, and a resynchronization of the listening connection
    /// would read from there. So the marks go back to where the round's reading began, and after a pause a
    /// resynchronization reads every followed box from its mark again (and again, while the database stays away).
    private func readAgainLater(_ work: [PeerRef: PushRange]) async {
        try? await server.configuration.environment.sleep(Self.retryPause)
        state.withLock { state in
            for (box, range) in work {
                if let mark = state.marks[box] { state.marks[box] = min(mark, range.after) }
            }
            state.pending.append(.resynchronize)
        }
    }

    /// What must be read from which log: pts segments `(after, upTo]` per box with sessions here. Marks move past
    /// everything announced; boxes without sessions here are forgotten.
    private func ranges(for notices: [CommitNotice], marks: inout [PeerRef: Int32]) -> [PeerRef: PushRange] {
        var ranges: [PeerRef: PushRange] = [:]
        for notice in notices {
            switch notice {
            case .resynchronize:
                for (box, mark) in marks { ranges[box, default: PushRange()].add(after: mark, upTo: .max) }
            case let .loggedOut(authKeyID):
                server.forgetLogin(authKeyID: authKeyID)
            case .profileChanged:
                break   // the feed's listener made the user cache forget the row
            case let .statusChanged(userID, status):
                server.statusAnnounced(status, of: userID)
            case let .committed(origin, events):
                for event in events where !event.sequenced {
                    guard hasSessions(event.box) else {
                        marks[event.box] = nil
                        continue
                    }
                    let start = event.pts - event.ptsCount
                    let mark = marks[event.box] ?? start
                    ranges[event.box, default: PushRange()].add(after: mark, upTo: origin == feed.origin ? start : event.pts)
                    marks[event.box] = max(mark, event.pts)
                }
            }
        }
        return ranges.filter { !$0.value.segments.isEmpty }
    }

    private func hasSessions(_ box: PeerRef) -> Bool {
        switch box {
        case let .user(id): !server.sessions.outlets(of: id, except: nil).isEmpty
        default: server.sessions.count > 0
        }
    }

    /// The pts segments of one box to push; `upTo == .max` means "to the box's current pts".
    struct PushRange: Sendable {
        var segments: [(after: Int32, upTo: Int32)] = []

        mutating func add(after: Int32, upTo: Int32) {
            if upTo > after { segments.append((after, upTo)) }
        }

        var after: Int32 { segments.map(\.after).min() ?? 0 }
        var upTo: Int32 { segments.map(\.upTo).max() ?? 0 }

        func contains(_ pts: Int32) -> Bool { segments.contains { $0.after < pts && pts <= $0.upTo } }
    }

    struct Push: Sendable {
        let bytes: [UInt8]
        let outlets: [SessionOutlet]
    }
}

extension CrossProcessPush {
    /// A box's range with its end known, and where the reading of the box ends.
    struct BoundedRange: Sendable {
        let box: PeerRef
        let range: PushRange
        let readUpTo: Int32
    }

    /// Fixes the end of every range that runs "to the box's current pts" (after a resynchronization), reading those
    /// boxes' states.
    private func bound(_ work: [PeerRef: PushRange]) async throws -> [BoundedRange] {
        let open = work.filter { $0.value.upTo == .max }.map(\.key)
        let current = open.isEmpty ? [:] : try await server.storage.readLatest { [self] tx in
            try Dictionary(uniqueKeysWithValues: open.map { ($0, try currentPts(of: $0, in: tx)) })
        }
        return work.map { box, range in
            let upTo = current[box] ?? range.upTo
            return BoundedRange(box: box, range: PushRange(segments: range.segments.map { ($0.after, min($0.upTo, upTo)) }), readUpTo: upTo)
        }
    }

    /// The users' logs to read: one range per user box, unless it is too long to push.
    private static func userLogs(_ bounded: [BoundedRange]) -> [LogRange] {
        bounded.compactMap { item in
            guard case let .user(user) = item.box, item.range.upTo > item.range.after,
                  item.range.upTo - item.range.after <= maximumRange else { return nil }
            return LogRange(user: user, after: item.range.after, upTo: item.range.upTo)
        }
    }

    /// The pushes for every box's range, with where each box's reading ended; `logs` holds the users' events.
    private func render(_ bounded: [BoundedRange], logs: [Int64: [StoredEvent]],
                        in tx: any StorageReader) throws -> [(PeerRef, (pushes: [Push], readUpTo: Int32))] {
        try bounded.map { item in
            let pushes = switch item.box {
            case let .user(user): try renderUser(user, item.range, events: logs[user] ?? [], in: tx)
            case let .channel(id): try renderChannel(id, item.range, in: tx)
            case .chat: [Push]()
            }
            return (item.box, (pushes, item.readUpTo))
        }
    }

    private func currentPts(of box: PeerRef, in tx: any StorageReader) throws -> Int32 {
        switch box {
        case let .user(user): try tx.state(user: user).pts
        case let .channel(id): try tx.channel(id: id)?.pts ?? 0
        case .chat: 0
        }
    }

    /// A user's range as one `updates` with the users and chats its messages name, or a too-long signal for a range
    /// too long to push; `events` is the log read for the range.
    private func renderUser(_ user: Int64, _ range: PushRange, events: [StoredEvent], in tx: any StorageReader) throws -> [Push] {
        let outlets = server.sessions.outlets(of: user, except: nil)
        guard !outlets.isEmpty, range.upTo > range.after else { return [] }
        guard range.upTo - range.after <= Self.maximumRange else {
            return [Push(bytes: API.Updates.updatesTooLong(.init()).serialized(), outlets: outlets)]
        }
        let events = events.filter { range.contains($0.pts) }
        guard let last = events.last else { return [] }
        var peers: Set<PeerRef> = [.user(user)]
        for event in events {
            if let message = LoggedUpdateBytes.newMessage(in: event.update), let named = LoggedUpdateBytes.peers(inMessage: message) {
                peers.formUnion(named)
            }
        }
        let users = try peers.compactMap { peer -> UserRecord? in
            if case let .user(id) = peer { try tx.user(id: id) } else { nil }
        }
        let body = API.Updates.updates(.init(
            updates: events.compactMap { try? API.Update.deserialize($0.update) },
            users: try ViewerLinks.rendered(users, viewer: user, in: tx),
            chats: try ChatRendering.chats(among: Array(peers), viewer: user, in: tx), date: last.date, seq: 0))
        return [Push(bytes: body.serialized(), outlets: outlets)]
    }

    /// A channel's range as one `updates` per member with sessions here (each sees the channel as a member does), or
    /// `updateChannelTooLong` for a range too long to push.
    private func renderChannel(_ id: Int64, _ range: PushRange, in tx: any StorageReader) throws -> [Push] {
        guard let channel = try tx.channel(id: id) else { return [] }
        let viewers = try tx.memberIDs(channel: id).map { ($0, server.sessions.outlets(of: $0, except: nil)) }.filter { !$0.1.isEmpty }
        guard !viewers.isEmpty, range.upTo > range.after else { return [] }
        let audience = ChannelAudience(ids: viewers.map(\.0), standing: try ChannelAudience.standing(of: id, in: tx))
        guard range.upTo - range.after <= Self.maximumRange else {
            return viewers.map { viewer, outlets in
                Push(bytes: API.Updates.updates(.init(
                    updates: [.updateChannelTooLong(.init(channelId: id, pts: range.after))], users: [],
                    chats: [ChannelRendering.chat(channel, seenBy: viewer, in: audience)], date: channel.lastEventDate, seq: 0)).serialized(),
                     outlets: outlets)
            }
        }
        let events = try tx.channelEvents(channel: id, afterPts: range.after, limit: Int(range.upTo - range.after))
            .filter { range.contains($0.pts) }
            .compactMap { event in (try? API.Update.deserialize(event.update)).map { (event.date, $0) } }
        guard let date = events.last?.0 else { return [] }
        // Senders, forward origins, service messages' members (`NamedPeers`); other chats in their `min` form.
        let named = events.flatMap { NamedPeers.of($0.1) }
        let users = try PeerRendering.users(among: named, in: tx)
        let others = try PeerRendering.chats(among: named.filter { $0 != .channel(id) }, viewer: 0, in: tx).map(ChannelRendering.minimal)
        let links = try ViewerLinks.read(viewers: viewers.map(\.0), users: users.map(\.id), in: tx)
        return viewers.map { viewer, outlets in
            Push(bytes: API.Updates.updates(.init(
                updates: events.map { ChannelRendering.event($0.1, viewer: viewer, broadcast: channel.broadcast) },
                users: links.rendered(users, viewer: viewer),
                chats: [ChannelRendering.chat(channel, seenBy: viewer, in: audience)] + others, date: date, seq: 0)).serialized(),
                 outlets: outlets)
        }
    }
}
