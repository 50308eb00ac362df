import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

@Suite(.timeLimit(.minutes(2)))
struct DifferenceTests {
    func difference(_ client: TestClient, from pts: Int32, date: Int32 = 0) async throws -> API.updates.Difference {
        try await client.call(API.functions.updates.GetDifference(pts: pts, date: date, qts: 0))
    }

    /// Missed messages arrive through slices in pts order, none twice, ending with the final state.
    @Test(arguments: StorageBackend.all) func slicesDeliverEveryMissedEventOnceInOrder(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend, differencePageSize: 3)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let peer = try await inputUser(1002, in: alice)
        for index in 1...10 { _ = try await send("missed \(index)", to: peer, from: alice) }

        var pts: Int32 = 0
        var texts: [String] = []
        var slices = 0
        var finalDate: Int32 = 0
        while true {
            switch try await difference(bob, from: pts) {
            case let .differenceSlice(slice):
                slices += 1
                texts += slice.newMessages.compactMap { if case let .message(m) = $0 { m.message } else { nil } }
                guard case let .state(state) = slice.intermediateState else { return }
                #expect(state.pts == pts + 3)
                pts = state.pts
                continue
            case let .difference(final):
                texts += final.newMessages.compactMap { if case let .message(m) = $0 { m.message } else { nil } }
                guard case let .state(state) = final.state else { return }
                #expect(state.pts == 10)
                finalDate = state.date
                #expect(final.users.contains { if case let .user(u) = $0 { u.id == 1001 } else { false } })
            default:
                Issue.record("unexpected difference")
            }
            break
        }
        #expect(slices == 3)
        #expect(texts == (1...10).map { "missed \($0)" })
        // Past the lookback: a difference lists again the channels with news in the `lookback` seconds before its date,
        // and the seeded @lounge was created when the server started (a run faster than that saw it listed).
        guard case let .differenceEmpty(empty) = try await difference(bob, from: 10, date: finalDate + Difference.lookback + 1) else {
            Issue.record("not empty"); return
        }
        #expect(empty.seq == 0)
        await alice.close()
        await bob.close()
        try await harness.stop()
    }

    /// 100,000 missed updates (3,000 on PostgreSQL, whose seeding is one round trip per statement) reach a client
    /// through slices of 1,000: every message once, in pts order.
    @Test(arguments: StorageBackend.all) func manyMissedUpdatesArriveThroughSlices(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let storage = try await harness.openStorage()
        let total = backend == .sqlite ? 100_000 : 3_000
        try await BulkSeeding.privateMessages(in: storage, from: 1001, to: 1002, count: total, date: 1_700_000_000)
        let bob = try await harness.loggedIn(bobPhone)
        var pts: Int32 = 0
        var next = 1
        var slices = 0
        var finished = false
        while !finished {
            let page = try await difference(bob, from: pts)
            let messages: [API.Message]
            switch page {
            case let .differenceSlice(slice):
                guard case let .state(state) = slice.intermediateState else { Issue.record("no state"); return }
                (messages, pts) = (slice.newMessages, state.pts)
                slices += 1
            case let .difference(final):
                guard case let .state(state) = final.state else { Issue.record("no state"); return }
                (messages, pts) = (final.newMessages, state.pts)
                finished = true
            default:
                Issue.record("unexpected \(page.constructorName)"); return
            }
            for case let .message(message) in messages {
                guard message.message == "message \(next)" else {
                    Issue.record("expected message \(next), got \(message.message)"); return
                }
                next += 1
            }
        }
        #expect(next - 1 == total)
        #expect(pts == Int32(total))
        #expect(slices == total / 1_000 - 1)
        await bob.close()
        await storage.close()
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func aGapAboveTheThresholdIsTooLong(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend, tooLongThreshold: 4)
        let alice = try await harness.loggedIn(alicePhone)
        let peer = try await inputUser(1002, in: alice)
        for index in 1...6 { _ = try await send("m\(index)", to: peer, from: alice) }
        guard case let .differenceTooLong(tooLong) = try await difference(alice, from: 1) else { Issue.record("expected too long"); return }
        #expect(tooLong.pts == 6)
        guard case .difference = try await difference(alice, from: 2) else { Issue.record("a gap of 4 is not too long"); return }
        await alice.close()
        try await harness.stop()
    }

    /// Reading advances the reader's pts (read inbox) and the other side's (read outbox, in their own ids).
    @Test(arguments: StorageBackend.all) func readHistoryIsAnEventInBothBoxes(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let sent = try await send("read me", to: try await inputUser(1002, in: alice), from: alice)
        _ = try await bob.nextPush()
        let affected = try await bob.call(API.functions.messages.ReadHistory(peer: try await inputUser(1001, in: bob), maxId: 0))
        guard case let .affectedMessages(read) = affected else { return }
        #expect(read.pts == 2 && read.ptsCount == 1)
        guard case let .updateShort(short) = try await alice.nextPush(),
              case let .updateReadHistoryOutbox(outbox) = short.update else { Issue.record("no read-outbox push"); return }
        #expect(outbox.maxId == sent.id && outbox.pts == 2)
        let bobState = try await state(of: bob)
        #expect(bobState.unreadCount == 0)
        await alice.close()
        await bob.close()
        try await harness.stop()
    }

    /// The server restarts on the same data: logins and counters are kept, and counting goes on without a hole.
    @Test(arguments: StorageBackend.all) func loginsAndCountersSurviveARestart(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        _ = try await send("before", to: try await inputUser(1002, in: alice), from: alice)
        let key = alice.connection.key
        await alice.close()
        try await harness.stop(removingData: false)

        let restarted = try await ServerHarness(backend: backend, directory: harness.directory, postgresURL: harness.postgresURL)
        let again = try await TestClient(port: restarted.server.port, publicKey: restarted.server.keys.rsaKey.publicKey,
                                         existingKey: key, inspector: checkPeerReferences)
        let next = try await send("after", to: try await inputUser(1002, in: again), from: again)
        #expect(next.pts == 2)
        await again.close()
        try await restarted.stop()
    }
}

@Suite(.timeLimit(.minutes(2)))
struct HistoryTests {
    /// 30 messages (ids 1…30 in Bob's box); getHistory's offsets as Telegram defines them.
    @Test(arguments: StorageBackend.all) func offsetsLimitsAndBounds(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        for index in 1...30 { _ = try await send("h\(index)", to: try await inputUser(1002, in: alice), from: alice) }
        let peer = try await inputUser(1001, in: bob)
        func page(offsetID: Int32 = 0, addOffset: Int32 = 0, limit: Int32 = 100, maxID: Int32 = 0, minID: Int32 = 0) async throws -> [Int32] {
            let result = try await bob.call(API.functions.messages.GetHistory(
                peer: peer, offsetId: offsetID, offsetDate: 0, addOffset: addOffset, limit: limit, maxId: maxID, minId: minID, hash: 0))
            let messages: [API.Message] = switch result {
            case let .messages(m): m.messages
            case let .messagesSlice(m): m.messages
            default: []
            }
            return messages.compactMap { if case let .message(m) = $0 { m.id } else { nil } }
        }
        #expect(try await page() == Array((1...30).reversed()))
        #expect(try await page(limit: 5) == [30, 29, 28, 27, 26])
        #expect(try await page(offsetID: 26, limit: 5) == [25, 24, 23, 22, 21])
        #expect(try await page(offsetID: 26, addOffset: 2, limit: 3) == [23, 22, 21])
        #expect(try await page(offsetID: 26, addOffset: -2, limit: 4) == [27, 26, 25, 24])
        // A skip lands on the index (then the page reads below it): past the end is empty, bounds still hold.
        #expect(try await page(addOffset: 27, limit: 5) == [3, 2, 1])
        #expect(try await page(addOffset: 30) == [])
        #expect(try await page(addOffset: 2, limit: 3, maxID: 20, minID: 12) == [17, 16, 15])
        await expectRPCError("OFFSET_INVALID") {
            try await bob.call(API.functions.messages.GetHistory(peer: peer, offsetId: 0, offsetDate: 0, addOffset: HistoryPaging.maximumSkip + 1,
                                                                 limit: 5, maxId: 0, minId: 0, hash: 0))
        }
        #expect(try await page(maxID: 10, minID: 5) == [9, 8, 7, 6])
        #expect(try await page(offsetID: 1) == [])
        #expect(try await page(limit: 1_000).count == 30)
        // An offset_date before every message with the most negative add_offset: the newest messages, no overflow.
        let early = try await bob.call(API.functions.messages.GetHistory(
            peer: peer, offsetId: 0, offsetDate: 1, addOffset: .min, limit: 3, maxId: 0, minId: 0, hash: 0))
        guard case let .messagesSlice(slice) = early else { Issue.record("\(early.constructorName)"); return }
        #expect(slice.messages.count == 3)
        // The same skip in a supergroup: its id index.
        let lounge = try await inputChannel("lounge", in: alice)
        var posted: [Int32] = []
        for index in 1...12 { posted.append(try await post("p\(index)", to: lounge, from: alice).id) }
        let skipped = try await bob.call(API.functions.messages.GetHistory(
            peer: channelPeer(try await inputChannel("lounge", in: bob)), offsetId: 0, offsetDate: 0, addOffset: 3, limit: 4, maxId: 0, minId: 0, hash: 0))
        guard case let .channelMessages(channelPage) = skipped else { Issue.record("\(skipped.constructorName)"); return }
        #expect(channelPage.messages.compactMap { if case let .message(m) = $0 { m.id } else { nil } } == Array(posted.reversed()[3..<7]))
        #expect(channelPage.count >= 12 && !channelPage.inexact)
        await alice.close()
        await bob.close()
        try await harness.stop()
    }
}

/// `peer(_:)` of a channel under a name a test's local `peer` does not hide.
private func channelPeer(_ channel: API.InputChannel) -> API.InputPeer {
    peer(channel)
}
