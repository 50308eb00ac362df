import MTProto
import TL

/// What the sequencer asks of its driver, in order.
public enum SequencerOutput: Equatable, Sendable {
    /// Hand this update to the app (and the store), in this order. Short forms are already expanded.
    case deliver(API.Update)
    /// Users and chats to merge before the deliveries that follow.
    case entities(users: [API.User], chats: [API.Chat])
    case getDifference(pts: Int32, qts: Int32, date: Int32)
    case getChannelDifference(channelID: Int64, accessHash: Int64, pts: Int32, limit: Int32)
    /// The common box was reset by `updates.differenceTooLong`: cached history is stale.
    case differenceTooLong
    /// `updates.channelDifferenceTooLong`: the channel's history has a hole to refetch. `latest` are the channel's
    /// newest messages, to store as history (never delivered as new: they are not the missed ones).
    case channelReset(Int64, latest: [API.Message])
}

/// The client's message box (core.telegram.org/api/updates; docs/UPDATE-RULES.md), sans I/O:
/// every entry point takes the time and returns what to deliver and what to request; `nextDeadline` says when to call
/// `fireTimers`.
///
/// Rules, where implementations differ following the doc and TDLib:
/// * Inside a container, pts updates go first, per box, sorted by `pts - pts_count`; the seq check covers the rest
///   (and moves seq/date whenever a container passes it).
/// * `local + count == pts` applies, `>` is a duplicate, `<` a possible gap: buffered, re-scanned on every arrival,
///   and after `possibleGapWait` (0.5 s) dropped for a difference of that box only.
/// * Updates for a box being diffed are postponed and re-checked once it ends: each is delivered at most once and none
///   is lost. Updates inside a difference are authoritative (no pts re-check for the common and secondary boxes).
/// * An update naming a peer the client cannot resolve is never delivered: its box's part of the container is left to
///   a difference, so the pts never moves past it.
/// * Channel `timeout`s never delay gap recovery; 15 minutes without updates in a box fetches its difference.
public struct UpdateSequencer: Sendable {
    /// What the sequencer needs to know about the account it runs for.
    public struct Configuration: Sendable {
        /// The account's own user id (outgoing short messages name the other side only).
        public var selfID: Int64
        /// Bots get a larger channel-difference limit.
        public var isBot: Bool
        /// The gap wait, the silence that fetches a difference and the retry backoff.
        public var timing: SyncTiming

        /// The account `selfID`, a bot or not, with Telegram's timing unless a test shortens it.
        public init(selfID: Int64, isBot: Bool = false, timing: SyncTiming = .standard) {
            self.selfID = selfID
            self.isBot = isBot
            self.timing = timing
        }

        /// How long a possible gap (pts or seq) may wait for the missing updates.
        var possibleGapWait: Double { timing.possibleGapWait }
        /// Silence after which a box fetches its difference.
        var noUpdatesTimeout: Double { timing.noUpdatesTimeout }

        /// getChannelDifference's `limit`: 100 for users, 100,000 for bots (core.telegram.org/method/updates.getChannelDifference).
        public var channelDifferenceLimit: Int32 { isBot ? 100_000 : 100 }
    }

    /// One update (or, for `messages.affected*`, only its counters) with its place in a box.
    struct SequencedItem: Equatable, Sendable {
        var box: UpdateBox
        var pts: Int32
        var count: Int32
        var update: API.Update?
    }

    struct PossibleGap: Sendable {
        var items: [SequencedItem]
        var expires: Double
    }

    /// A difference request of one box: in flight, or failed and waiting to be sent again.
    enum Fetch: Equatable, Sendable {
        case requested
        case retrying(at: Double)
    }

    /// The counters as applied so far: what the store holds once the outputs are written.
    public internal(set) var state: SyncState
    /// Users and channels whose access hashes the client has (an update naming another waits for a difference).
    public internal(set) var peers: PeerKnowledge
    /// The account and timing this sequencer was made with.
    public let configuration: Configuration
    let normalizer: UpdatesNormalizer
    var deadlines: [UpdateBox: Double] = [:]
    var gaps: [UpdateBox: PossibleGap] = [:]
    var seqGap: SeqGap?
    var commonFetch: Fetch?
    var commonFailures = 0
    /// Something the in-flight difference may predate (an incomplete update, `updatesTooLong`) came in: ask again once
    /// it ends, or that thing could wait 15 minutes.
    var commonRefetch = false
    /// The highest session that opened while a common difference was in flight (`Int.max`: a session without a
    /// number). It needs one more difference after it, unless an answer came on that session or a later one.
    var sessionDuringFetch: Int?
    /// The highest session a common difference was answered on: changes to it or an earlier session need nothing more
    /// (UPDATE-RULES §7: one difference at a time; a session change that lands after the difference it caused
    /// was answered used to fetch a second one at every start).
    var coveredSession = 0
    var channelRefetch: Set<Int64> = []
    var channelFetches: [Int64: Fetch] = [:]
    var channelFailures: [Int64: Int] = [:]
    /// Common and secondary updates, and seq-checked parts, that arrived during a getDifference.
    var postponedItems: [SequencedItem] = []
    var postponedSeq: [SeqPart] = []
    /// Channel updates that arrived during that channel's getChannelDifference.
    var postponedChannel: [Int64: [SequencedItem]] = [:]
    var outputs: [SequencerOutput] = []

    /// A sequencer starting from the stored `state` at time `now` (seconds, any monotonic origin).
    public init(state: SyncState, peers: PeerKnowledge = PeerKnowledge(), configuration: Configuration, now: Double) {
        self.state = state
        self.peers = peers
        self.peers.learnUser(configuration.selfID)   // the account's own messages always resolve
        self.configuration = configuration
        normalizer = UpdatesNormalizer(selfID: configuration.selfID)
        if hasCommonState { deadlines[.common] = now + configuration.noUpdatesTimeout }
        if state.qts != 0 { deadlines[.secondary] = now + configuration.noUpdatesTimeout }
        for channel in state.channels.keys { deadlines[.channel(channel)] = now + configuration.noUpdatesTimeout }
    }

    // MARK: entry points

    /// After a (re)start with a saved state: one getDifference (UPDATE-RULES §1). Nothing for a fresh account.
    public mutating func start(now: Double) -> [SequencerOutput] {
        if !state.isEmpty { requestCommonDifference(now: now) }
        return drain()
    }

    /// An `Updates` pushed on the connection.
    public mutating func push(_ updates: API.Updates, now: Double) -> [SequencerOutput] {
        switch normalizer.normalize(updates, knowledge: peers) {
        case let .container(container): process(container, now: now)
        case .tooLong, .incomplete: requestFreshDifference(of: .common, now: now)
        }
        return drain()
    }

    /// The `Updates` answering an RPC the app made; `updateShortSentMessage` is joined with its `sendMessage`.
    public mutating func sent(_ result: API.Updates, request: API.functions.messages.SendMessage?, now: Double) -> [SequencerOutput] {
        guard case let .updateShortSentMessage(sent) = result else { return push(result, now: now) }
        if let request, let update = normalizer.sentMessage(sent, request: request) {
            process(UpdateContainer(updates: [update]), now: now)
        } else {
            requestFreshDifference(of: .common, now: now)   // received passively: only a difference can say what it was
        }
        return drain()
    }

    /// `messages.affectedMessages`/`affectedHistory` of a method that changed the common box, or `channel`'s box
    /// (core.telegram.org/api/updates#event-sequences): counters only. pts 0 and untracked channels are ignored.
    public mutating func affected(pts: Int32, count: Int32, channel: Int64? = nil, now: Double) -> [SequencerOutput] {
        let box = channel.map(UpdateBox.channel) ?? .common
        guard pts > 0, count >= 0, pts >= count else { return [] }
        if let channel, state.channels[channel] == nil { return [] }
        check(SequencedItem(box: box, pts: pts, count: count, update: nil), now: now)
        return drain()
    }

    /// A new MTProto session or a reconnect: pushes may have been missed (core.telegram.org/api/updates#recovering-gaps).
    /// `session` is its number (`SessionChange.number`), nil when unknown. One difference at a time: during one, the
    /// change is remembered and costs one more only if that difference was not answered on this session or a later one;
    /// a change to a session an answered difference already covers costs nothing.
    ///
    /// `viewedChannels`: channels the app is looking at; each gets its channel difference too, as pushes on the old
    /// session may have been lost (core.telegram.org/api/updates: channels the user does not look at are caught up by
    /// the `updateChannelTooLong` a common difference carries).
    public mutating func sessionChanged(session: Int? = nil, viewedChannels: Set<Int64> = [], now: Double) -> [SequencerOutput] {
        if let session, session <= coveredSession { return [] }
        if commonFetch != nil {
            sessionDuringFetch = max(sessionDuringFetch ?? 0, session ?? .max)
        } else {
            requestCommonDifference(now: now)
        }
        for channel in viewedChannels.sorted() where state.channels[channel] != nil { requestFreshDifference(of: .channel(channel), now: now) }
        return drain()
    }

    // MARK: containers

    mutating func drain() -> [SequencerOutput] {
        defer { outputs.removeAll() }
        return outputs
    }

    mutating func process(_ container: UpdateContainer, now: Double) {
        ingest(users: container.users, chats: container.chats)
        let users = Set(container.users.map(\.id))
        let channels = Set(container.chats.map(\.id))
        var perBox: [UpdateBox: [SequencedItem]] = [:]
        var incomplete: Set<UpdateBox> = []
        var unordered: [API.Update] = []
        var tooLong: [(Int64, Int32?)] = []
        for update in container.updates {
            let ordering = UpdateOrdering(update)
            guard !ordering.isMalformed else { continue }
            switch ordering {
            case let .ordered(box, pts, count):
                let complete = UpdatesNormalizer.peers(of: update).allSatisfy {
                    peers.resolves($0, users: users, channels: channels)
                }
                if complete { perBox[box, default: []].append(SequencedItem(box: box, pts: pts, count: count, update: update)) }
                else { incomplete.insert(box) }
            case let .channelTooLong(channel, pts):
                tooLong.append((channel, pts))
            case .unordered:
                unordered.append(update)
            }
        }
        for box in perBox.keys.sorted() where !incomplete.contains(box) {
            for item in Self.ordered(perBox[box] ?? []) { check(item, now: now) }
        }
        for box in incomplete.sorted() {
            deadlines[box] = now + configuration.noUpdatesTimeout
            // A channel the client cannot address is learnt from the common difference (which names it).
            if case let .channel(id) = box, peers.accessHash(ofChannel: id) == nil {
                requestFreshDifference(of: .common, now: now)
            } else {
                requestFreshDifference(of: box, now: now)
            }
        }
        for (channel, pts) in tooLong { channelTooLong(channel, pts: pts, now: now) }
        seqCheck(SeqPart(updates: unordered, seqStart: container.seqStart, seq: container.seq, date: container.date,
                         users: container.users), now: now)
    }

    mutating func ingest(users: [API.User], chats: [API.Chat]) {
        guard !users.isEmpty || !chats.isEmpty else { return }
        peers.ingest(users: users, chats: chats)
        outputs.append(.entities(users: users, chats: chats))
    }

    /// Sorted by `pts - count`, stable (TDL: `updateReadChannelInbox(pts X, count 0)` may precede the message at X).
    static func ordered(_ items: [SequencedItem]) -> [SequencedItem] {
        items.enumerated().sorted { l, r in
            let (a, b) = (l.element.start, r.element.start)
            return a != b ? a < b : l.offset < r.offset
        }.map(\.element)
    }

    // MARK: the pts check (UPDATE-RULES §5)

    /// Nothing is awaited: no difference in flight, to retry or to repeat, no possible gap, nothing postponed.
    public var isIdle: Bool {
        commonFetch == nil && channelFetches.isEmpty && !commonRefetch && sessionDuringFetch == nil && channelRefetch.isEmpty && gaps.isEmpty && seqGap == nil
            && postponedItems.isEmpty && postponedSeq.isEmpty && postponedChannel.allSatisfy(\.value.isEmpty)
    }

    /// Whether the server ever gave this client a common state (`updates.getState`, a difference, a dated container).
    /// Then pts and qts 0 are a fresh account's real counters, not "no state": a first update at pts 2 is a gap (a
    /// server numbering from 0 exposed this), and §5's "accept without state" is only for a client with none.
    var hasCommonState: Bool { state.pts != 0 || state.qts != 0 || state.date != 0 }

    func localPts(_ box: UpdateBox) -> Int32? {
        switch box {
        case .common: hasCommonState ? state.pts : nil
        case .secondary: hasCommonState ? state.qts : nil
        case let .channel(id): state.channels[id]
        }
    }

    mutating func setLocalPts(_ box: UpdateBox, _ pts: Int32) {
        switch box {
        case .common: state.pts = pts
        case .secondary: state.qts = pts
        case let .channel(id): state.channels[id] = pts
        }
    }

    func isFetching(_ box: UpdateBox) -> Bool {
        switch box {
        case .common, .secondary: commonFetch != nil
        case let .channel(id): channelFetches[id] != nil
        }
    }

    mutating func check(_ item: SequencedItem, now: Double) {
        deadlines[item.box] = now + configuration.noUpdatesTimeout
        if isFetching(item.box) {
            if case let .channel(id) = item.box { postponedChannel[id, default: []].append(item) } else { postponedItems.append(item) }
            // Past the bound, what waits is dropped for one more difference after the running one (which brings
            // it all): a server that pushes without end while it withholds the difference costs bounded memory.
            if case let .channel(id) = item.box, postponedChannel[id, default: []].count > Self.possibleGapLimit {
                postponedChannel[id] = nil
                requestFreshDifference(of: item.box, now: now)
            } else if postponedItems.count > Self.possibleGapLimit {
                postponedItems.removeAll()
                requestFreshDifference(of: item.box, now: now)
            }
            return
        }
        guard let local = localPts(item.box) else {
            // A box without state takes the first update (§5). A channel's first with count 0 (a read before any
            // message seen here) starts one below it, so the message at that same pts is not taken for a duplicate.
            apply(item)
            if case .channel = item.box, item.count == 0 { setLocalPts(item.box, max(item.pts, 2) - 1) }   // no overflow at Int32.min
            return
        }
        if item.follows(local) {
            apply(item)
            rescanGap(item.box)
        } else if item.isAhead(of: local) {
            if gaps[item.box] == nil {
                gaps[item.box] = PossibleGap(items: [], expires: now + configuration.possibleGapWait)
            }
            gaps[item.box]?.items.append(item)   // a later arrival does not extend the wait
            rescanGap(item.box)
            // A server that keeps sending what does not fit would grow the buffer (and each re-scan of it) without
            // bound: past `possibleGapLimit` the wait ends, as its timer would, in a difference of the box.
            if let buffered = gaps[item.box]?.items.count, buffered > Self.possibleGapLimit {
                gaps[item.box] = nil
                requestDifference(of: item.box, now: now)
            }
        }
        // local + count > pts: already applied; dropped.
    }

    /// Updates one box's possible gap (or its updates postponed during a difference, or containers waiting for the
    /// seq) may hold before a difference is fetched without waiting.
    static let possibleGapLimit = 1_000

    mutating func apply(_ item: SequencedItem) {
        setLocalPts(item.box, item.pts)
        if let update = item.update { outputs.append(.deliver(update)) }
    }

    /// Applies what became contiguous, drops what became old; an empty buffer ends the possible gap.
    mutating func rescanGap(_ box: UpdateBox) {
        guard var gap = gaps[box] else { return }
        var progressed = true
        while progressed {
            progressed = false
            gap.items = Self.ordered(gap.items)
            var kept: [SequencedItem] = []
            for item in gap.items {
                let local = localPts(box) ?? 0
                if item.follows(local) {
                    apply(item)
                    progressed = true
                } else if item.isAhead(of: local) {
                    kept.append(item)
                } else {
                    progressed = true   // old: dropped
                }
            }
            gap.items = kept
        }
        gaps[box] = gap.items.isEmpty ? nil : gap
    }
}

extension API.User {
    var id: Int64 {
        switch self {
        case let .user(value): value.id
        case let .userEmpty(value): value.id
        }
    }
}

extension API.Chat {
    var id: Int64 {
        switch self {
        case let .chat(value): value.id
        case let .chatEmpty(value): value.id
        case let .chatForbidden(value): value.id
        case let .channel(value): value.id
        case let .channelForbidden(value): value.id
        case let .community(value): value.id
        case let .communityForbidden(value): value.id
        }
    }
}

extension UpdateSequencer.SequencedItem {
    /// `pts - pts_count`, in 64 bits: a server's counters are any Int32s, and their sums must not trap.
    var start: Int64 { Int64(pts) - Int64(count) }
    /// `local + pts_count == pts`: the next update of the box.
    func follows(_ local: Int32) -> Bool { start == Int64(local) }
    /// `local + pts_count < pts`: a possible gap before it.
    func isAhead(of local: Int32) -> Bool { start > Int64(local) }
}
