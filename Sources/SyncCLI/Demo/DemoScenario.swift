import Foundation
import Logging
import MTProtoNIO
import Postbox
import Synchronization
import SyncEngine
import SyncServer
import SyncHarness
import TL

/// The demo's steps, printed as they happen. Alice and Bob are `Account`s (the client core an app embeds), each in
/// its own directory beside the server's data.
struct DemoScenario {
    let plan: DemoPlan
    let directory: String
    static let news = StoreMapping.channel(2001)
    static let newsInput = API.InputPeer.inputPeerChannel(.init(channelId: 2001, accessHash: 0x5EED_1000))
    static let bobInput = API.InputPeer.inputPeerUser(.init(userId: 1002, accessHash: 0x5EED_0001))

    func run() async throws -> DemoOutcome {
        var logger = Logger(label: "demo")
        logger.logLevel = .error
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 1, dataDirectory: directory + "/server", loginCode: "12345", seedDevAccounts: true,
            differencePageSize: DemoPlan.sliceSize, channelTooLongThreshold: max(1, plan.posts / 3), sendsPerSecond: 0, dcCount: 2),
            logger: logger)
        do {
            let outcome = try await run(server)
            try await server.stop()
            return outcome
        } catch {
            try? await server.stop()
            throw error
        }
    }

    private func configuration(_ name: String, _ server: SyncServer) -> Account.Configuration {
        // Both start on DC 1: Alice lives there, Bob on DC 2, so his login follows PHONE_MIGRATE_2.
        Account.Configuration(directory: directory + "/" + name, addresses: .loopback(server.ports), initialDC: 1,
                              publicKeys: [server.keys.rsaKey.publicKey])
    }

    private func run(_ server: SyncServer) async throws -> DemoOutcome {
        var outcome = DemoOutcome()
        print("SyncCore demo: an embedded server (SQLite in \(directory)/server), DC 1 on 127.0.0.1:\(server.ports[1] ?? 0), "
            + "DC 2 on 127.0.0.1:\(server.ports[2] ?? 0)")
        print("\n1. Login through the client core (phone code)")
        let alice = try await logIn("alice", "+15550001", server)
        print("   Alice: home DC \(await alice.network.masterDC)")
        var bob = try await logIn("bob", "+15550002", server)
        print("   Bob:   home DC \(await bob.network.masterDC) (started on DC 1, followed PHONE_MIGRATE)")
        let bobPeer = try await alice.resolve(username: "bob")
        let alicePeer = try await bob.resolve(username: "alice")
        _ = try await bob.resolve(username: "news")
        try await bob.join(channel: Self.news)

        print("\n2. Live messages (send → the other's history view shows it)")
        for index in 1...plan.live {
            outcome.latencies.append(try await deliver("hello \(index)", from: alice, to: bobPeer, seenBy: bob, in: alicePeer, "Alice → Bob"))
            outcome.latencies.append(try await deliver("re: hello \(index)", from: bob, to: alicePeer, seenBy: alice, in: bobPeer, "Bob → Alice"))
        }
        try await bob.synced()
        outcome.connections.bob = await bob.network.accounting.tcpConnections
        await bob.close()

        print("\n3. Bob goes offline; Alice sends \(plan.missed.formatted()) messages and posts \(plan.posts) times in @news")
        try await sendMissed(from: alice)

        print("\n4. Bob comes back and catches up (getDifference in slices of \(DemoPlan.sliceSize.formatted()))")
        let catchUpStart = ContinuousClock.now
        bob = try await Account.open(configuration("bob", server))
        guard case let .state(truth) = try await bob.network.send(API.functions.updates.GetState()) else {
            throw DemoError("no state from the server")
        }
        var progress = ProgressLine("   catch-up")
        let startPts = await bob.syncState?.pts ?? 0
        let synced = Task { [bob] in try await bob.synced() }
        while await (bob.syncState?.pts ?? 0) < truth.pts {
            let pts = await bob.syncState?.pts ?? 0
            let elapsed = (ContinuousClock.now - catchUpStart).seconds
            progress.show(Int(pts - startPts), of: Int(truth.pts - startPts),
                          "pts \(pts)/\(truth.pts), \(Int(Double(pts - startPts) / max(elapsed, 0.001))) updates/s")
            try await Task.sleep(for: .milliseconds(50))
        }
        try await synced.value
        outcome.missed = plan.missed
        outcome.catchUpSeconds = (ContinuousClock.now - catchUpStart).seconds
        progress.finish("pts \(truth.pts) in \(String(format: "%.2f", outcome.catchUpSeconds)) s")
        let newsStored = try await storedIDs(Self.news, in: bob.postbox).count
        print("   @news: more than \(max(1, plan.posts / 3)) posts behind → channelDifferenceTooLong: the history became a hole "
            + "with the latest \(newsStored) posts")

        print("\n5. Bob scrolls @news up into the hole (each window fetched on demand)")
        (outcome.holeWindows, outcome.holeMessages) = try await scrollToTop(of: Self.news, in: bob, before: newsStored)
        print("   \(outcome.holeWindows) windows of 40, \(outcome.holeMessages) posts fetched")

        outcome.connections.alice = await alice.network.accounting.tcpConnections
        outcome.connections.bob += await bob.network.accounting.tcpConnections
        (outcome.verified, outcome.problems) = try await DemoVerification.check(bob: bob, alice: alicePeer, truthPts: truth.pts)
        await bob.close()
        await alice.close()
        return outcome
    }

    private func logIn(_ name: String, _ phone: String, _ server: SyncServer) async throws -> Account {
        let account = try await Account.open(configuration(name, server))
        if await !account.isLoggedIn {
            let hash = try await account.requestCode(phone: phone)
            try await account.signIn(phone: phone, code: "12345", codeHash: hash)
        }
        return account
    }

    /// Sends `text` and waits until the recipient's history view shows it; prints and returns the latency (ms).
    private func deliver(_ text: String, from sender: Account, to peer: PeerID, seenBy recipient: Account, in chat: PeerID,
                         _ label: String) async throws -> Double {
        var view = recipient.history(chat, count: 4).makeAsyncIterator()
        _ = try await view.next()
        let start = ContinuousClock.now
        try await sender.send(text, to: peer)
        while let update = try await view.next(), update.snapshot.messages.last?.text != text {}
        let latency = (ContinuousClock.now - start).seconds * 1000
        print("   \(label)  \"\(text)\"".padding(toLength: 34, withPad: " ", startingAt: 0) + DemoCommand.ms(latency))
        return latency
    }

    /// Alice's messages to Bob, 64 requests in flight on her connection, and her @news posts.
    private func sendMissed(from alice: Account) async throws {
        let sent = SendCounter()
        let start = ContinuousClock.now
        let total = plan.missed + plan.posts
        let lanes = 64
        let work = Task { [plan] in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<lanes {
                    group.addTask {
                        for index in stride(from: lane, to: plan.missed, by: lanes) {
                            _ = try await alice.network.send(API.functions.messages.SendMessage(
                                peer: Self.bobInput, message: "message \(index + 1)", randomId: Int64(1_000_000 + index)))
                            sent.count.add(1, ordering: .relaxed)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for index in 0..<plan.posts {
                _ = try await alice.network.send(API.functions.messages.SendMessage(
                    peer: Self.newsInput, message: "post \(index + 1)", randomId: Int64(5_000_000 + index)))
                sent.count.add(1, ordering: .relaxed)
            }
        }
        var progress = ProgressLine("   sending ")
        while !work.isCancelled {
            let done = sent.count.load(ordering: .relaxed)
            if done >= total { break }
            let elapsed = (ContinuousClock.now - start).seconds
            progress.show(done, of: total, "\(done.formatted())/\(total.formatted()) (\(Int(Double(done) / max(elapsed, 0.001))) msg/s)")
            try await Task.sleep(for: .milliseconds(50))
        }
        try await work.value
        let elapsed = (ContinuousClock.now - start).seconds
        progress.finish("\(total.formatted()) in \(String(format: "%.1f", elapsed)) s (\(Int(Double(total) / max(elapsed, 0.001))) msg/s)")
    }

    /// Opens windows of 40 from the latest posts up to the channel's first message, each waiting until no hole is left
    /// within it; returns the windows opened and the posts fetched.
    private func scrollToTop(of chat: PeerID, in account: Account, before stored: Int) async throws -> (Int, Int) {
        var anchor: MessageIndex?
        var windows = 0
        let postbox = account.postbox
        while windows < 1_000 {
            let view = MessageHistoryView(peer: chat, namespace: StoreMapping.cloudMessages, anchor: anchor, count: 40)
            var settled: MessageHistoryView.Snapshot?
            for try await update in postbox.view(view) where update.snapshot.earlierHole == nil {
                settled = update.snapshot
                break
            }
            windows += 1
            guard let oldest = settled?.messages.first, oldest.id.id > 1 else { break }
            anchor = oldest.index
        }
        return (windows, try await storedIDs(chat, in: postbox).count - stored)
    }

    func storedIDs(_ chat: PeerID, in postbox: Postbox) async throws -> [Int32] {
        try await postbox.read { transaction in
            try transaction.allMessages(peer: chat, namespace: StoreMapping.cloudMessages).map(\.id.id)
        }
    }
}

/// Sends made so far, shared by the sending tasks and the progress line.
private final class SendCounter: Sendable {
    let count = Atomic<Int>(0)
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
