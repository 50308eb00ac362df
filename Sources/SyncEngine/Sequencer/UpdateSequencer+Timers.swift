/// The sequencer's timers: possible-gap waits (pts and seq), difference retries and the 15-minute silence of each box
/// (UPDATE-RULES §6). The driver calls `fireTimers(now:)` at `nextDeadline`; timers due together fire in
/// deadline order, and boxes that fall silent together share one request.
extension UpdateSequencer {
    enum Timer: Comparable {
        case gap(UpdateBox)
        case seqGap
        case commonRetry
        case channelRetry(Int64)
        case silence(UpdateBox)
    }

    /// Every armed timer with its time.
    var timers: [(at: Double, timer: Timer)] {
        var all: [(Double, Timer)] = gaps.map { ($0.value.expires, .gap($0.key)) }
        if let seqGap { all.append((seqGap.expires, .seqGap)) }
        if case let .retrying(at)? = commonFetch { all.append((at, .commonRetry)) }
        for (channel, fetch) in channelFetches { if case let .retrying(at) = fetch { all.append((at, .channelRetry(channel))) } }
        all += deadlines.map { ($0.value, .silence($0.key)) }
        return all
    }

    /// When `fireTimers` should next be called (nil: nothing armed).
    public var nextDeadline: Double? { timers.map(\.at).min() }

    /// Fires every timer due at `now` (gap waits, silence, retries); call at `nextDeadline`.
    public mutating func fireTimers(now: Double) -> [SequencerOutput] {
        let due = timers.filter { $0.at <= now }.sorted { $0.at != $1.at ? $0.at < $1.at : $0.timer < $1.timer }
        for (_, timer) in due { fire(timer, now: now) }
        return drain()
    }

    private mutating func fire(_ timer: Timer, now: Double) {
        switch timer {
        case let .gap(box):
            guard gaps.removeValue(forKey: box) != nil else { return }   // dropped: the difference re-delivers them
            requestDifference(of: box, now: now)
        case .seqGap:
            seqGap = nil
            requestCommonDifference(now: now)
        case .commonRetry:
            commonFetch = nil
            requestCommonDifference(now: now)
        case let .channelRetry(channel):
            channelFetches[channel] = nil
            requestChannelDifference(channel, now: now)
        case let .silence(box):
            guard deadlines[box] != nil else { return }
            deadlines[box] = now + configuration.noUpdatesTimeout   // moves on even when nothing can be asked
            switch box {
            case .common, .secondary: if hasCommonState { requestCommonDifference(now: now) }
            case let .channel(id): requestChannelDifference(id, now: now)
            }
        }
    }
}
