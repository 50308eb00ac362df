import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// The sequencer against a simulated server through a lossy network, seeded: the server writes messages to the
/// common box and to a channel over time; pushes are dropped, duplicated and delayed (so reordered), sessions are
/// renewed; differences are answered from the server's truth, in slices. Whatever happens, every message reaches the
/// app exactly once and in order, and the state ends equal to the server's.
struct SequencerPropertyTests {
    static let channel: Int64 = 43
    static let user: Int64 = 555

    /// One simulated run; returns a description of the first violation, or nil.
    static func run(seed: UInt64, messages: Int = 120) -> String? {
        var rng = SplitMix64(seed: seed)
        let basePts: Int32 = 100, baseChannelPts: Int32 = 30
        var sequencer = UpdateSequencer(
            state: SyncState(pts: basePts, qts: 1, seq: 0, date: 1, channels: [channel: baseChannelPts]),
            peers: PeerKnowledge(users: [user: 1], channels: [channel: 7]), configuration: .init(selfID: 1), now: 0)
        // Arrivals on the virtual clock: pushes, difference answers, new sessions.
        enum Arrival { case push(API.Updates), answer(Request), newSession }
        enum Request { case common(pts: Int32), channel(pts: Int32) }
        var arrivals: [(at: Double, order: Int, arrival: Arrival)] = []
        var order = 0
        func schedule(_ at: Double, _ arrival: Arrival) { order += 1; arrivals.append((at, order, arrival)) }

        // The server's truth: message i is written at time i * 0.05, alternately to the common box and the channel.
        var commonWritten: [(time: Double, id: Int32)] = [], channelWritten: [(time: Double, id: Int32)] = []
        for index in 0..<messages {
            let time = Double(index) * 0.05
            let isChannel = index % 3 == 2
            let update: API.Updates
            if isChannel {
                channelWritten.append((time, Int32(channelWritten.count + 1)))
                let pts = baseChannelPts + Int32(channelWritten.count)
                update = .updates(.init(updates: [.updateNewChannelMessage(.init(message: message(pts, channel: true), pts: pts, ptsCount: 1))],
                                        users: [], chats: [], date: 2, seq: 0))
            } else {
                commonWritten.append((time, Int32(commonWritten.count + 1)))
                let pts = basePts + Int32(commonWritten.count)
                update = .updateShortMessage(.init(id: pts, userId: user, message: "m\(pts)", pts: pts, ptsCount: 1, date: 2))
            }
            let roll = Double.random(in: 0..<1, using: &rng)
            if roll < 0.15 { continue }                                           // dropped
            schedule(time + Double.random(in: 0..<0.8, using: &rng), .push(update))   // delayed: reordered
            if roll > 0.9 { schedule(time + Double.random(in: 0..<1.5, using: &rng), .push(update)) }   // duplicated
        }
        for _ in 0..<3 { schedule(Double.random(in: 0..<Double(messages) * 0.05, using: &rng), .newSession) }
        schedule(Double(messages) * 0.05 + 2, .newSession)   // a last reconnect after everything was written

        func serverPts(_ written: [(time: Double, id: Int32)], at time: Double, base: Int32) -> Int32 {
            base + Int32(written.filter { $0.time <= time }.count)
        }
        var delivered: [Int32] = [], deliveredChannel: [Int32] = []
        var failure: String?
        func handle(_ outputs: [SequencerOutput], now: Double) {
            for output in outputs {
                switch output {
                case let .deliver(update):
                    switch update {
                    case let .updateNewMessage(value): if case let .message(m) = value.message { delivered.append(m.id) }
                    case let .updateNewChannelMessage(value): if case let .message(m) = value.message { deliveredChannel.append(m.id) }
                    default: failure = failure ?? "unexpected delivery \(update.constructorName)"
                    }
                case let .getDifference(pts, _, _):
                    schedule(now + Double.random(in: 0.01..<0.3, using: &rng), .answer(.common(pts: pts)))
                case let .getChannelDifference(_, _, pts, _):
                    schedule(now + Double.random(in: 0.01..<0.3, using: &rng), .answer(.channel(pts: pts)))
                default: break
                }
            }
        }
        var clock = 0.0
        handle(sequencer.start(now: 0), now: 0)
        while !arrivals.isEmpty {
            arrivals.sort { $0.at != $1.at ? $0.at < $1.at : $0.order < $1.order }
            let next = arrivals.removeFirst()
            while let due = sequencer.nextDeadline, due <= next.at {
                clock = due
                handle(sequencer.fireTimers(now: due), now: due)
            }
            clock = next.at
            switch next.arrival {
            case let .push(updates):
                handle(sequencer.push(updates, now: clock), now: clock)
            case .newSession:
                handle(sequencer.sessionChanged(now: clock), now: clock)
            case let .answer(.common(pts)):
                let top = serverPts(commonWritten, at: clock, base: basePts)
                let end = min(top, pts + 10)   // slices of 10
                let missing = (max(pts, basePts) + 1...max(end, pts + 1)).filter { $0 <= end }.map { message($0, channel: false) }
                let state = API.updates.State.state(.init(pts: end, qts: 1, date: 3, seq: 0, unreadCount: 0))
                // Like Telegram, the final answer names the channel with its pts (updateChannelTooLong); the client
                // fetches it only if it is behind.
                let channelNews = API.Update.updateChannelTooLong(.init(channelId: channel,
                                                                        pts: serverPts(channelWritten, at: clock, base: baseChannelPts)))
                let answer: API.updates.Difference = end < top
                    ? .differenceSlice(.init(newMessages: missing, newEncryptedMessages: [], otherUpdates: [], chats: [], users: [], intermediateState: state))
                    : .difference(.init(newMessages: missing, newEncryptedMessages: [], otherUpdates: [channelNews], chats: [], users: [], state: state))
                handle(sequencer.differenceReceived(answer, now: clock), now: clock)
            case let .answer(.channel(pts)):
                let top = serverPts(channelWritten, at: clock, base: baseChannelPts)
                let end = min(top, pts + 10)
                let missing = pts < end ? (pts + 1...end).map { message($0, channel: true) } : []
                handle(sequencer.channelDifferenceReceived(channel, .channelDifference(.init(
                    final: end == top, pts: max(end, pts), newMessages: missing, otherUpdates: [], chats: [], users: [])), now: clock), now: clock)
            }
        }
        if let failure { return "seed \(seed): \(failure)" }
        let expected = (1...Int32(commonWritten.count)).map { basePts + $0 }
        let expectedChannel = (1...Int32(channelWritten.count)).map { baseChannelPts + $0 }
        if delivered != expected { return "seed \(seed): common delivered \(delivered), expected \(expected)" }
        if deliveredChannel != expectedChannel { return "seed \(seed): channel delivered \(deliveredChannel), expected \(expectedChannel)" }
        if sequencer.state.pts != expected.last || sequencer.state.channels[channel] != expectedChannel.last {
            return "seed \(seed): state \(sequencer.state)"
        }
        return nil
    }

    /// Message ids equal their pts here, so order and exactly-once can be read from the ids.
    static func message(_ pts: Int32, channel: Bool) -> API.Message {
        .message(.init(id: pts, fromId: .peerUser(.init(userId: user)),
                       peerId: channel ? .peerChannel(.init(channelId: Self.channel)) : .peerUser(.init(userId: user)),
                       date: 2, message: channel ? "c\(pts)" : "m\(pts)"))
    }

    @Test func everyMessageOnceAndInOrderThroughALossyNetwork() {
        var failures: [String] = []
        for seed in UInt64(1)...300 {
            if let failure = Self.run(seed: seed) { failures.append(failure) }
        }
        #expect(failures.isEmpty, "\(failures.count) of 300 seeds failed; first: \(failures.first ?? "")")
    }
}
