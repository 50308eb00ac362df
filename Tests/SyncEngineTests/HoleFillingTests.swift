import Foundation
import Logging
import MTProtoNIO
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// A channel catch-up that the server answers with channelDifferenceTooLong becomes a history hole (its latest
/// messages stored, none delivered as new); scrolling a history view up the channel makes the hole filler fetch, page
/// by page, only what each window reaches, until the whole history is in the store.
@Suite(.timeLimit(.minutes(2)))
struct HoleFillingTests {
    static func channelMessages(_ postbox: Postbox, _ channel: PeerID) async throws -> [Message] {
        try await postbox.read { transaction in
            try transaction.allMessages(peer: channel, namespace: 0)
        }
    }

    @Test func aChannelTooLongBecomesAHoleThatAViewFills() async throws {
        let world = try await TestWorld.make(channelTooLongThreshold: 50)
        let (server, alice, bob) = (world.server, world.alice, world.bob)
        guard case let .resolvedPeer(found) = try await alice.network.send(API.functions.contacts.ResolveUsername(username: "lounge")),
              case let .channel(lounge)? = found.chats.first else { Issue.record("resolve lounge"); return }
        let toLounge = API.InputPeer.inputPeerChannel(.init(channelId: lounge.id, accessHash: lounge.accessHash ?? 0))
        let channel = StoreMapping.channel(lounge.id)

        // Bob follows the channel live, then goes offline while 120 posts pile up (the server's limit is 50).
        var bobAccount = try await AccountStateManager.start(postbox: bob.postbox, network: bob.network, selfID: bob.user.id)
        _ = try await alice.network.send(API.functions.messages.SendMessage(peer: toLounge, message: "first", randomId: 1))
        #expect(try await TestWorld.eventually { try await Self.channelMessages(bob.postbox, channel).contains { $0.text == "first" } })
        await bobAccount.stop()
        await bob.network.close()
        for index in 0..<120 {
            _ = try await alice.network.send(API.functions.messages.SendMessage(peer: toLounge, message: "post \(index)", randomId: Int64(100 + index)))
        }

        // The catch-up: getDifference names the channel, its difference is too long: reset, a hole, nothing new delivered.
        let (network, postbox) = try await bob.reopened(server: server)
        bobAccount = try await AccountStateManager.start(postbox: postbox, network: network, selfID: bob.user.id)
        var events = bobAccount.events.makeAsyncIterator()
        var delivered: [API.Update] = []
        while let event = await events.next() {
            if event == .channelReset(lounge.id) { break }
            if case let .delivered(update) = event { delivered.append(update) }
        }
        #expect(!delivered.contains { if case .updateNewChannelMessage = $0 { true } else { false } })
        let key = HoleKey(peer: channel, namespace: 0, space: .everywhere)
        let afterReset = try await postbox.read { try $0.holes(key) }
        let latest = try await Self.channelMessages(postbox, channel)
        #expect(!afterReset.isEmpty)
        #expect(latest.count < 121 && latest.contains { $0.text == "post 119" })

        // Scrolling up: a window of 30 at the latest messages, then one anchored at the oldest message shown, and so on;
        // each window waits until no hole is left within it, and the filler fetches only what a window reaches.
        let filler = HistoryHoleFiller(postbox: postbox, network: network)
        await filler.start()
        func settledWindow(at anchor: MessageIndex?) async throws -> MessageHistoryView.Snapshot? {
            for try await update in postbox.view(MessageHistoryView(peer: channel, namespace: 0, anchor: anchor, count: 30))
            where update.snapshot.earlierHole == nil { return update.snapshot }
            return nil
        }
        var anchor: MessageIndex?
        var windows = 0
        while windows < 30, let window = try await settledWindow(at: anchor) {
            windows += 1
            if windows == 1 {   // on demand: the first window did not bring the whole history
                #expect(try await !postbox.read { try $0.holes(key) }.isEmpty)
            }
            guard let oldest = window.messages.first, oldest.id.id > 1 else { break }   // the channel's first message
            anchor = oldest.index
        }
        let texts = Set(try await Self.channelMessages(postbox, channel).map(\.text))
        #expect(texts.isSuperset(of: ["first"] + (0..<120).map { "post \($0)" }))
        #expect(try await postbox.read { try $0.holes(key) }.isEmpty)
        let stored = try await Self.channelMessages(postbox, channel)
        #expect(Set(stored.map(\.id)).count == stored.count)
        #expect(windows >= 5 && windows < 30)   // scrolled by 15 messages a window
        #expect(await filler.fetches >= 4)      // pages of at most 30 (the view's size)
        await filler.stop()
        await bobAccount.stop()
        await network.close()
        try await world.stop()
    }
}
