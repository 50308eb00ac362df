import Testing
@testable import SyncEngine

/// A new session fetches one common difference, and the channel differences of the channels the app is looking at.
struct SessionChangeTests {
    static func sequencer() -> UpdateSequencer {
        var state = SyncState()
        (state.pts, state.qts, state.seq, state.date) = (10, 0, 1, 50)
        state.channels = [43: 30, 44: 7]
        return UpdateSequencer(state: state, peers: PeerKnowledge(users: [:], channels: [43: 7777, 44: 8888]),
                               configuration: .init(selfID: 1, isBot: false), now: 0)
    }

    static func requests(_ outputs: [SequencerOutput]) -> [String] {
        outputs.compactMap { output in
            switch output {
            case .getDifference: "difference"
            case let .getChannelDifference(channel, _, pts, _): "channel \(channel) from \(pts)"
            default: nil
            }
        }
    }

    @Test func viewedChannelsAreCaughtUpAfterAReconnect() {
        var sequencer = Self.sequencer()
        #expect(Self.requests(sequencer.sessionChanged(session: 1, viewedChannels: [43, 99], now: 0))
                == ["difference", "channel 43 from 30"], "99 is not tracked: nothing to ask")
        var unviewed = Self.sequencer()
        #expect(Self.requests(unviewed.sessionChanged(session: 1, now: 0)) == ["difference"])
        // Covered sessions ask nothing, not even for viewed channels.
        _ = sequencer.differenceReceived(.differenceEmpty(.init(date: 60, seq: 1)), session: 1, now: 1)
        #expect(Self.requests(sequencer.sessionChanged(session: 1, viewedChannels: [43], now: 2)).isEmpty)
    }
}
