import Postbox
import Testing
@testable import SyncEngine

/// The hole manager's rules on a fake clock: what to fetch, when not to, and what a page proves.
struct HoleFetchPlannerTests {
    static let chat = PeerID(namespace: 0, id: 7)
    static let key = HoleKey(peer: chat, namespace: 0, space: .everywhere)
    static let top = Int32.max - 1

    static func request(_ hole: ClosedRange<Int32>, _ direction: HistoryDirection = .older, anchor: Int32 = top,
                        key: HoleKey = key) -> HoleRequest {
        HoleRequest(key: key, hole: hole, direction: direction, count: 50, anchor: anchor)
    }

    @Test func oneFetchAtATimePerKeyAndTheNextWhenItCompletes() {
        var planner = HoleFetchPlanner()
        let first = Self.request(1...1000)
        let started = planner.viewsChanged([first], now: 0)
        #expect(started == [.start(HoleFetch(first))])
        // A second view of the same chat with another hole: waits for the key.
        let other = Self.request(2000...3000, .newer, anchor: 1500)
        #expect(planner.viewsChanged([first, other], now: 0.1).isEmpty)
        // The first completed and the views moved on (the hole shrank): the next fetch of the key starts at once.
        let shrunk = Self.request(1...899)
        _ = planner.viewsChanged([shrunk], now: 0.2)
        #expect(planner.completed(HoleFetch(first), now: 0.3) == [.start(HoleFetch(shrunk))])
    }

    @Test func aCompletedFetchIsNotRepeatedForTwentySeconds() {
        var planner = HoleFetchPlanner()
        let request = Self.request(1...1000)
        _ = planner.viewsChanged([request], now: 0)
        // The server had nothing: the views still ask the same.
        #expect(planner.completed(HoleFetch(request), now: 1).isEmpty)
        #expect(planner.viewsChanged([request], now: 2).isEmpty)
        #expect(planner.nextDeadline == 21)
        #expect(planner.fire(now: 20.9).isEmpty)
        #expect(planner.fire(now: 21) == [.start(HoleFetch(request))])
        // Another chat is not held back by it.
        let elsewhere = HoleKey(peer: PeerID(namespace: 0, id: 8), namespace: 0, space: .everywhere)
        var fresh = HoleFetchPlanner()
        _ = fresh.viewsChanged([request], now: 0)
        _ = fresh.completed(HoleFetch(request), now: 1)
        let other = Self.request(1...5, key: elsewhere)
        #expect(fresh.viewsChanged([request, other], now: 2) == [.start(HoleFetch(other))])
    }

    @Test func aFetchWhoseViewWentAwayLingersHalfASecondThenIsCancelled() {
        var planner = HoleFetchPlanner()
        let request = Self.request(1...1000)
        _ = planner.viewsChanged([request], now: 0)
        #expect(planner.viewsChanged([], now: 1).isEmpty)
        #expect(planner.nextDeadline == 1.5)
        // Reopened within the grace: the running fetch is reused, nothing new starts.
        #expect(planner.viewsChanged([request], now: 1.3).isEmpty)
        #expect(planner.fire(now: 2).isEmpty)
        #expect(planner.runningFetches == [HoleFetch(request)])
        // Gone for good: cancelled after 0.5 s.
        _ = planner.viewsChanged([], now: 3)
        #expect(planner.fire(now: 3.49).isEmpty)
        #expect(planner.fire(now: 3.5) == [.cancel(HoleFetch(request))])
        #expect(planner.runningFetches.isEmpty)
    }

    @Test func aViewAnchoredInsideAHoleFetchesAroundItsAnchor() throws {
        var planner = HoleFetchPlanner()
        let hole: ClosedRange<Int32> = 100...900
        let older = Self.request(hole, .older, anchor: 500), newer = Self.request(hole, .newer, anchor: 500)
        let actions = planner.viewsChanged([older, newer], now: 0)
        let fetch = HoleFetch(older, around: true)
        #expect(actions == [.start(fetch)])
        #expect(fetch.mode == .around(500))
        let parameters = fetch.parameters
        #expect(parameters.offsetID == 500 && parameters.addOffset == -25 && parameters.maxID == 901 && parameters.minID == 99)
        // 25 at or above the anchor and 25 below: known from the lowest to the highest received.
        let full = Array(475...499) + Array(500...524)
        #expect(fetch.filled(by: full.map(Int32.init)) == 475...524)
        // Fewer above the anchor than asked: known up to the hole's top.
        #expect(fetch.filled(by: (475...510).map(Int32.init)) == 475...900)
    }

    @Test func olderAndNewerPagesProveWhatTheyCover() {
        let older = HoleFetch(Self.request(1...1000, .older, anchor: Self.top))
        #expect(older.parameters.offsetID == 1001 && older.parameters.addOffset == 0)
        #expect(older.filled(by: (951...1000).map(Int32.init)) == 951...1000)
        #expect(older.filled(by: (990...1000).map(Int32.init)) == 1...1000, "fewer than asked: known to the hole's bottom")
        let newer = HoleFetch(Self.request(200...Self.top, .newer, anchor: 150))
        #expect(newer.parameters.offsetID == 200 && newer.parameters.addOffset == -50 && newer.parameters.maxID == 0)
        #expect(newer.filled(by: (200...249).map(Int32.init)) == 200...249)
        #expect(newer.filled(by: [200, 201]) == 200...Self.top)
    }
}
