import MTProto
import TL

/// `updates.getDifference` and `updates.getChannelDifference` (UPDATE-RULES §7–9): at most one common
/// difference and one per channel at a time; slices and non-final channel differences are followed at once;
/// `differenceTooLong` and `channelDifferenceTooLong` reset the box and say so; transient failures are retried with
/// backoff (`SyncTiming.retryDelay`: 1, 2, 4 … 60 s, or the flood wait), `CHANNEL_PRIVATE` forgets the channel; updates postponed meanwhile are
/// re-checked when the box's difference ends.
extension UpdateSequencer {
    // MARK: requests

    /// For news the in-flight difference of `box` may predate: one more difference once it ends.
    mutating func requestFreshDifference(of box: UpdateBox, now: Double) {
        switch box {
        case .common, .secondary: if commonFetch != nil { commonRefetch = true }
        case let .channel(id): if channelFetches[id] != nil { channelRefetch.insert(id) }
        }
        requestDifference(of: box, now: now)
    }

    mutating func requestDifference(of box: UpdateBox, now: Double) {
        if case let .channel(id) = box { requestChannelDifference(id, now: now) } else { requestCommonDifference(now: now) }
    }

    /// Covers the common and secondary boxes and the seq; their possible gaps are dropped (the difference brings them).
    mutating func requestCommonDifference(now: Double) {
        guard commonFetch == nil else { return }
        commonFetch = .requested
        gaps[.common] = nil
        gaps[.secondary] = nil
        if let held = seqGap {
            postponedSeq += held.parts   // re-checked against the seq the difference ends with
            seqGap = nil
        }
        outputs.append(.getDifference(pts: state.pts, qts: state.qts, date: max(state.date, 1)))
    }

    /// A channel whose access hash is unknown cannot be asked for: its state is dropped (it returns with the next
    /// container that carries the channel).
    mutating func requestChannelDifference(_ channel: Int64, now: Double) {
        guard channelFetches[channel] == nil else { return }
        guard let hash = peers.accessHash(ofChannel: channel) else { return forget(channel) }
        channelFetches[channel] = .requested
        gaps[.channel(channel)] = nil
        // §8 (TDLib): a channel whose pts is unknown or not positive asks from pts 1 for one message, which brings
        // its real pts without a flood of history.
        let local = state.channels[channel] ?? 0
        outputs.append(.getChannelDifference(channelID: channel, accessHash: hash, pts: local > 0 ? local : 1,
                                             limit: local > 0 ? configuration.channelDifferenceLimit : 1))
    }

    /// `updateChannelTooLong`: fetch unless its pts is already reached. A channel without state (joined on another
    /// device) asks as TDLib does, from pts 1 for one message, whatever pts is named: that brings the channel's real
    /// pts and its latest message, which the chat list shows (starting at the named pts would bring neither).
    mutating func channelTooLong(_ channel: Int64, pts: Int32?, now: Double) {
        if let local = state.channels[channel] {
            if let pts, pts <= local { return }
        } else {
            guard peers.accessHash(ofChannel: channel) != nil else { return }
        }
        deadlines[.channel(channel)] = now + configuration.noUpdatesTimeout
        requestChannelDifference(channel, now: now)
    }

    mutating func forget(_ channel: Int64) {
        state.channels[channel] = nil
        gaps[.channel(channel)] = nil
        deadlines[.channel(channel)] = nil
        postponedChannel[channel] = nil
        channelFetches[channel] = nil
        channelFailures[channel] = nil
        channelRefetch.remove(channel)
    }

    // MARK: common answers

    /// `session`: the number of the session that answered (`ConnectionManager.sendNotingSession`), nil when unknown.
    public mutating func differenceReceived(_ difference: API.updates.Difference, session: Int? = nil, now: Double) -> [SequencerOutput] {
        guard commonFetch == .requested else { return [] }
        if let session {
            coveredSession = max(coveredSession, session)
            if let during = sessionDuringFetch, during <= session { sessionDuringFetch = nil }
        }
        switch difference {
        case let .differenceEmpty(empty):
            state.date = empty.date
            state.seq = empty.seq
            finishCommonDifference(now: now)
        case let .difference(full):
            applyDifference(full.newMessages, full.newEncryptedMessages, full.otherUpdates, full.users, full.chats, now: now)
            adopt(full.state)
            finishCommonDifference(now: now)
        case let .differenceSlice(slice):
            let before = state
            applyDifference(slice.newMessages, slice.newEncryptedMessages, slice.otherUpdates, slice.users, slice.chats, now: now)
            adopt(slice.intermediateState)
            if state.pts == before.pts && state.qts == before.qts && state.date == before.date {
                finishCommonDifference(now: now)   // no progress: stop looping (Telethon #808)
            } else {
                commonFetch = nil
                requestCommonDifference(now: now)
            }
        case let .differenceTooLong(tooLong):
            state.pts = tooLong.pts
            outputs.append(.differenceTooLong)
            commonFetch = nil
            requestCommonDifference(now: now)   // for qts, date and seq from the new pts
        }
        return drain()
    }

    /// The common difference failed: retried after a backoff when the error may pass (5xx, flood waits), given up
    /// otherwise.
    public mutating func differenceFailed(_ error: RPCError, now: Double) -> [SequencerOutput] {
        guard commonFetch == .requested else { return [] }
        if let delay = configuration.timing.retryDelay(error, failures: commonFailures) {
            commonFailures += 1
            commonFetch = .retrying(at: now + delay)
        } else {
            commonFetch = nil   // not retryable (an auth error): what waited on it cannot be placed
            commonRefetch = false
            sessionDuringFetch = nil
            postponedItems.removeAll()
            postponedSeq.removeAll()
        }
        return drain()
    }

    private mutating func adopt(_ state: API.updates.State) {
        guard case let .state(value) = state else { return }
        self.state.pts = value.pts
        self.state.qts = value.qts
        self.state.date = value.date
        self.state.seq = value.seq
    }

    /// TDL's order: id bindings, new messages, new encrypted messages, then the other updates. Common and secondary
    /// updates inside are authoritative; channel updates go through their boxes.
    private mutating func applyDifference(_ messages: [API.Message], _ encrypted: [API.EncryptedMessage], _ others: [API.Update],
                                          _ users: [API.User], _ chats: [API.Chat], now: Double) {
        ingest(users: users, chats: chats)
        let (bindings, rest) = (others.filter(Self.isBinding), others.filter { !Self.isBinding($0) })
        for update in bindings { outputs.append(.deliver(update)) }
        for message in messages { outputs.append(.deliver(Self.newMessageUpdate(message))) }
        for message in encrypted { outputs.append(.deliver(.updateNewEncryptedMessage(.init(message: message, qts: 0)))) }
        for update in rest {
            switch UpdateOrdering(update) {
            case let .ordered(.channel(id), pts, count):
                check(SequencedItem(box: .channel(id), pts: pts, count: count, update: update), now: now)
            case let .channelTooLong(id, pts):
                channelTooLong(id, pts: pts, now: now)
            default:
                outputs.append(.deliver(update))
            }
        }
    }

    static func isBinding(_ update: API.Update) -> Bool {
        if case .updateMessageID = update { return true }
        return false
    }

    /// A message from a difference as the update the app gets for a live one (counters 0: already placed).
    static func newMessageUpdate(_ message: API.Message) -> API.Update {
        UpdateOrdering.channelID(of: message) == nil
            ? .updateNewMessage(.init(message: message, pts: 0, ptsCount: 0))
            : .updateNewChannelMessage(.init(message: message, pts: 0, ptsCount: 0))
    }

    /// The difference ended: postponed updates go through the normal checks (old ones drop, new gaps wait again).
    mutating func finishCommonDifference(now: Double) {
        commonFetch = nil
        commonFailures = 0
        if hasCommonState { deadlines[.common] = now + configuration.noUpdatesTimeout }
        if state.qts != 0 { deadlines[.secondary] = now + configuration.noUpdatesTimeout }
        let (items, parts) = (postponedItems, postponedSeq)
        postponedItems.removeAll()
        postponedSeq.removeAll()
        for item in Self.ordered(items) { check(item, now: now) }
        for part in parts { seqCheck(part, now: now) }
        if commonRefetch || sessionDuringFetch != nil {
            commonRefetch = false
            sessionDuringFetch = nil
            requestCommonDifference(now: now)
        }
    }

    // MARK: channel answers

    /// A channel's difference arrived: its messages and updates are delivered, its pts taken, and a non-final one
    /// asked again at once.
    public mutating func channelDifferenceReceived(_ channel: Int64, _ difference: API.updates.ChannelDifference,
                                                   now: Double) -> [SequencerOutput] {
        guard channelFetches[channel] == .requested else { return [] }
        let final: Bool
        switch difference {
        case let .channelDifferenceEmpty(empty):
            state.channels[channel] = empty.pts
            final = empty.final
        case let .channelDifference(full):
            ingest(users: full.users, chats: full.chats)
            for message in full.newMessages { outputs.append(.deliver(Self.newMessageUpdate(message))) }
            for update in full.otherUpdates { outputs.append(.deliver(update)) }
            state.channels[channel] = full.pts
            final = full.final
        case let .channelDifferenceTooLong(tooLong):
            ingest(users: tooLong.users, chats: tooLong.chats)
            if case let .dialog(dialog) = tooLong.dialog, let pts = dialog.pts { state.channels[channel] = pts }
            outputs.append(.channelReset(channel, latest: tooLong.messages))   // stored as history, not replayed as new
            final = tooLong.final
        }
        channelFetches[channel] = nil
        if final {
            finishChannelDifference(channel, now: now)
        } else {
            requestChannelDifference(channel, now: now)
        }
        return drain()
    }

    /// A channel's difference failed: retried with backoff, or the channel forgotten when it is private or gone.
    public mutating func channelDifferenceFailed(_ channel: Int64, _ error: RPCError, now: Double) -> [SequencerOutput] {
        guard channelFetches[channel] == .requested else { return [] }
        if error.message == "CHANNEL_PRIVATE" || error.message == "CHANNEL_INVALID" {
            forget(channel)
        } else if let delay = configuration.timing.retryDelay(error, failures: channelFailures[channel] ?? 0) {
            channelFailures[channel, default: 0] += 1
            channelFetches[channel] = .retrying(at: now + delay)
        } else {
            channelFetches[channel] = nil
            finishChannelDifference(channel, now: now)
        }
        return drain()
    }

    private mutating func finishChannelDifference(_ channel: Int64, now: Double) {
        channelFailures[channel] = nil
        deadlines[.channel(channel)] = now + configuration.noUpdatesTimeout
        let items = postponedChannel.removeValue(forKey: channel) ?? []
        for item in Self.ordered(items) { check(item, now: now) }
        if channelRefetch.remove(channel) != nil { requestChannelDifference(channel, now: now) }
    }
}
