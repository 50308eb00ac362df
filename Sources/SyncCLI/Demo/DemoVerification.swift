import Postbox
import SyncEngine
import TL

/// The demo's last step: Bob's store against the server's truth, read through his own connection. The cursor must
/// equal the server's pts; the chat with Alice must hold as many messages as the server counts, and three pages of it
/// (newest, middle, oldest) must match message for message; @news must match entirely.
enum DemoVerification {
    /// What a message is, as both sides state it.
    struct Facts: Equatable {
        let id: Int32
        let date: Int32
        let incoming: Bool
        let text: String

        init(_ message: Message) {
            (id, date, incoming, text) = (message.id.id, message.timestamp, message.flags.contains(.incoming), message.text)
        }
    }

    static func check(bob: Account, alice: PeerID, truthPts: Int32) async throws -> (verified: String, problems: [String]) {
        var problems: [String] = []
        guard case let .state(state) = try await bob.network.send(API.functions.updates.GetState()) else {
            return ("", ["no state from the server"])
        }
        let stored = await bob.syncState?.pts ?? 0
        if stored != state.pts { problems.append("cursor pts \(stored), server pts \(state.pts)") }

        let aliceInput = API.InputPeer.inputPeerUser(.init(userId: alice.id, accessHash: 0x5EED_0000))
        let (newest, count) = try await page(aliceInput, below: 0, bob)
        let held = try await storedMessages(alice, in: bob.postbox)
        if held.count != count { problems.append("\(held.count) messages with Alice stored, the server counts \(count)") }
        let byID = Dictionary(held.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var compared = 0
        let ids = held.map(\.id).sorted()
        for offset in [Int32(0), ids.isEmpty ? 0 : ids[ids.count / 2], ids.isEmpty ? 0 : ids[min(ids.count - 1, 100)]] {
            let messages = offset == 0 ? newest : try await page(aliceInput, below: offset, bob).messages
            for message in messages {
                compared += 1
                if byID[message.id] != message { problems.append("with Alice: server \(message), stored \(byID[message.id].map { "\($0)" } ?? "nothing")") }
            }
        }

        let news = API.InputPeer.inputPeerChannel(.init(channelId: DemoScenario.news.id, accessHash: 0x5EED_1000))
        var truth: [Facts] = []
        var offset: Int32 = 0
        while true {
            let (messages, _) = try await page(news, below: offset, bob)
            truth += messages
            guard messages.count == 100, let lowest = messages.map(\.id).min() else { break }
            offset = lowest
        }
        let newsHeld = try await storedMessages(DemoScenario.news, in: bob.postbox)
        if newsHeld.sorted(by: { $0.id < $1.id }) != truth.sorted(by: { $0.id < $1.id }) {
            problems.append("@news: \(newsHeld.count) messages stored, the server has \(truth.count), or they differ")
        }
        let verified = "pts \(state.pts); \(held.count.formatted()) messages with Alice, \(compared) compared one by one; "
            + "@news \(newsHeld.count) messages, all compared"
        return (verified, Array(problems.prefix(20)))
    }

    /// One `messages.getHistory` page of 100 below `offset` (0: the newest), and the server's total count.
    private static func page(_ peer: API.InputPeer, below offset: Int32, _ bob: Account) async throws -> (messages: [Facts], count: Int) {
        let answer = try await bob.network.send(API.functions.messages.GetHistory(
            peer: peer, offsetId: offset, offsetDate: 0, addOffset: 0, limit: 100, maxId: 0, minId: 0, hash: 0))
        return (answer.messages.compactMap(StoreMapping.message).map(Facts.init), answer.totalCount)
    }

    private static func storedMessages(_ chat: PeerID, in postbox: Postbox) async throws -> [Facts] {
        try await postbox.read { transaction in
            try transaction.allMessages(peer: chat, namespace: StoreMapping.cloudMessages).map(Facts.init)
        }
    }
}
