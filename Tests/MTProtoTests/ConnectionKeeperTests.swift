import MTProto
import SyncTesting
import Testing

/// The keeper's rules on a fake clock: no sockets, the time is a number and the jitter a seeded generator.
struct ConnectionKeeperTests {
    typealias Keeper = ConnectionKeeper<SplitMix64>

    private func keeper(_ timing: ConnectionKeeperTiming = ConnectionKeeperTiming(), seed: UInt64 = 1) -> Keeper {
        Keeper(configuration: timing, random: SplitMix64(seed: seed))
    }

    @Test func aWantedConnectionIsOpenedAtOnceAndReopenedWithinHalfASecondOfADrop() throws {
        var keeper = keeper()
        #expect(keeper.setWanted(true, now: 0) == [.connect])
        #expect(keeper.connectionOpened(now: 0.1).isEmpty)
        #expect(keeper.connectionClosed(now: 30).isEmpty)
        let retry = try #require(keeper.nextDeadline)
        #expect(retry >= 30.1 && retry <= 30.5)
        #expect(keeper.fire(now: retry - 0.01).isEmpty)
        #expect(keeper.fire(now: retry) == [.connect])
    }

    @Test func failedAttemptsBackOffWithJitterUpToTheCap() throws {
        for seed in UInt64(1)...50 {
            var keeper = keeper(ConnectionKeeperTiming(retryCap: 30), seed: seed)
            _ = keeper.setWanted(true, now: 0)
            var now = 0.0
            var waits: [Double] = []
            for _ in 0..<20 {
                _ = keeper.connectFailed(now: now)
                let due = try #require(keeper.nextDeadline)
                waits.append(due - now)
                now = due
                #expect(keeper.fire(now: now) == [.connect])
            }
            #expect(waits.prefix(2).allSatisfy { $0 >= 0.1 && $0 <= 0.5 })
            #expect(waits[2] >= 0.5 && waits[2] <= 1.0)
            #expect(waits[3] >= 1.0 && waits[3] <= 2.0)
            #expect(waits.allSatisfy { $0 <= 30 + 1e-9 })
            #expect(abs((waits.last ?? 0) - 30) < 1e-9)
        }
        // The jitter spreads clients that failed together.
        let firsts = Set((UInt64(1)...20).map { seed -> Double in
            var keeper = keeper(seed: seed)
            _ = keeper.setWanted(true, now: 0)
            _ = keeper.connectFailed(now: 0)
            return keeper.nextDeadline ?? 0
        })
        #expect(firsts.count == 20)
    }

    @Test func aConnectionThatClosesAtOnceKeepsBackingOffAndAStableOneResetsIt() throws {
        var keeper = keeper()
        _ = keeper.setWanted(true, now: 0)
        var now = 0.0
        for _ in 0..<5 {
            _ = keeper.connectionOpened(now: now)
            _ = keeper.connectionClosed(now: now + 0.01)   // a server in a crash loop
            now = keeper.nextDeadline ?? 0
            _ = keeper.fire(now: now)
        }
        #expect(keeper.failures == 5)
        _ = keeper.connectionOpened(now: now)
        _ = keeper.connectionClosed(now: now + 5)
        #expect(keeper.failures == 0)
        // A connection that answered a call works: cut soon after by the network, it is retried at once.
        for _ in 0..<5 {
            _ = keeper.connectionOpened(now: now)
            _ = keeper.connectionClosed(now: now + 0.01)
            now = keeper.nextDeadline ?? 0
            _ = keeper.fire(now: now)
        }
        _ = keeper.connectionOpened(now: now)
        _ = keeper.connectionWorked(now: now + 0.01)
        _ = keeper.connectionClosed(now: now + 0.02)
        #expect(keeper.failures == 0)
        let retry = try #require(keeper.nextDeadline)
        #expect(retry - (now + 0.02) <= 0.5)
    }

    @Test func pingsEveryIntervalAndClosesWhenAPongIsLate() throws {
        var keeper = keeper(ConnectionKeeperTiming(keepaliveInterval: 60, pongTimeout: 15))
        _ = keeper.setWanted(true, now: 0)
        _ = keeper.connectionOpened(now: 0)
        #expect(keeper.nextDeadline == 60)
        #expect(keeper.fire(now: 60) == [.ping(id: 1, disconnectDelay: 75)])
        #expect(keeper.nextDeadline == 75)
        #expect(keeper.pongReceived(id: 1, now: 60.2).isEmpty)
        #expect(keeper.nextDeadline == 120)
        #expect(keeper.fire(now: 120) == [.ping(id: 2, disconnectDelay: 75)])
        #expect(keeper.pongReceived(id: 1, now: 121).isEmpty)   // a stale pong does not count
        #expect(keeper.fire(now: 134.9).isEmpty)
        #expect(keeper.fire(now: 135) == [.close])
        #expect(keeper.fire(now: 500).isEmpty)   // closing: nothing more until it is closed
        _ = keeper.connectionClosed(now: 135.1)
        let retry = try #require(keeper.nextDeadline)
        #expect(retry > 135.1 && retry <= 135.6)
    }

    @Test func theNetworkComingBackReconnectsAtOnceAndItsAbsenceStopsAttempts() throws {
        var keeper = keeper()
        _ = keeper.setWanted(true, now: 0)
        _ = keeper.connectionOpened(now: 0)
        #expect(keeper.setNetworkAvailable(false, now: 10).isEmpty)
        #expect(keeper.connectionClosed(now: 10).isEmpty)
        #expect(keeper.nextDeadline == nil)
        #expect(keeper.fire(now: 1000).isEmpty)
        #expect(keeper.setNetworkAvailable(true, now: 1000) == [.connect])
        // A failing network that comes back skips what remains of the backoff.
        for attempt in 0..<8 { _ = keeper.connectFailed(now: 1000 + Double(attempt)) }
        _ = keeper.setNetworkAvailable(false, now: 1010)
        #expect(keeper.setNetworkAvailable(true, now: 1011) == [.connect])
        #expect(keeper.failures == 0)
    }

    @Test func anUnwantedConnectionIsPingedButNotReopened() throws {
        var keeper = keeper(ConnectionKeeperTiming(keepaliveInterval: 60))
        _ = keeper.connectionOpened(now: 0)
        #expect(keeper.fire(now: 60) == [.ping(id: 1, disconnectDelay: 75)])
        _ = keeper.connectionClosed(now: 61)
        #expect(keeper.nextDeadline == nil)
        #expect(keeper.setWanted(true, now: 62) == [.connect])
        #expect(keeper.setWanted(false, now: 63).isEmpty)
        _ = keeper.connectFailed(now: 64)
        #expect(keeper.nextDeadline == nil)
    }

    @Test func aFloodWaitOnConnectIsSatOut() throws {
        var keeper = keeper()
        _ = keeper.setWanted(true, now: 0)
        _ = keeper.connectFailed(now: 0, retryAfter: 7)
        #expect(keeper.nextDeadline == 7)
    }
}
