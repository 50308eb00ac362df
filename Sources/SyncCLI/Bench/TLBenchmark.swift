import MTProto
import Foundation
import SyncHarness
import TL

/// Measures the TL codec on what a client mostly decodes: an `updates.difference` of 100 messages of
/// realistic size (text of 20–300 characters, entities on some, replies and channel posts with views)
/// plus the users and chats that come with them.
struct TLBenchmark {
    static let messageCount = 100
    static let targetMessagesPerSecond = 1_000_000.0

    var secondsPerFigure: Double

    func run() throws -> [BenchFigure] {
        let difference = Self.makeDifference()
        let bytes = difference.serialized()
        guard try API.updates.Difference.deserialize(bytes) == difference else {
            throw BenchError.mismatch("updates.difference did not survive a round trip")
        }
        let timer = BenchTimer(seconds: secondsPerFigure)
        let encode = timer.runsPerSecond { difference.serialized().count }
        let decode = timer.runsPerSecond { (try? API.updates.Difference.deserialize(bytes)) == nil ? 0 : bytes.count }
        let perMessage = Double(Self.messageCount)
        let megabytes = Double(bytes.count) / 1_000_000
        return [
            BenchFigure(bench: "tl.encode", value: encode * perMessage, unit: "msg/s", target: Self.targetMessagesPerSecond),
            BenchFigure(bench: "tl.decode", value: decode * perMessage, unit: "msg/s", target: Self.targetMessagesPerSecond),
            BenchFigure(bench: "tl.encode_bytes", value: encode * megabytes, unit: "MB/s", target: nil),
            BenchFigure(bench: "tl.decode_bytes", value: decode * megabytes, unit: "MB/s", target: nil),
            BenchFigure(bench: "tl.difference_size", value: Double(bytes.count), unit: "bytes", target: nil, higherIsBetter: false),
        ]
    }

    static func makeDifference() -> API.updates.Difference {
        var rng = SplitMix64(seed: 229)
        let words = ["sync", "the", "message", "box", "gap", "pts", "channel", "hello", "привет", "👋", "difference", "ok",
                     "https://example.org/page", "@bob", "#tag", "tomorrow", "at", "10:00", "see", "you"]
        var messages: [API.Message] = []
        for index in 0..<messageCount {
            var text = ""
            let target = 20 + Int(rng.next() % 280)
            while text.count < target { text += (text.isEmpty ? "" : " ") + words[Int(rng.next() % UInt64(words.count))] }
            let isChannel = index % 4 == 3
            let id = Int32(10_000 + index)
            let entities: [API.MessageEntity]? = index % 3 == 0
                ? [.messageEntityBold(.init(offset: 0, length: 4)), .messageEntityUrl(.init(offset: 5, length: 24))] : nil
            let replyTo: API.MessageReplyHeader? = index % 5 == 0
                ? .messageReplyHeader(.init(replyToMsgId: id - 3)) : nil
            messages.append(.message(.init(
                out: index % 2 == 0, id: id,
                fromId: isChannel ? nil : .peerUser(.init(userId: Int64(1_000 + index % 10))),
                peerId: isChannel ? .peerChannel(.init(channelId: 4242)) : .peerUser(.init(userId: 1_000 + Int64(index % 10))),
                replyTo: replyTo, date: 1_700_000_000 + id, message: text, entities: entities,
                views: isChannel ? 1_234 : nil, forwards: isChannel ? 5 : nil, editDate: index % 7 == 0 ? 1_700_000_500 : nil
            )))
        }
        let users: [API.User] = (0..<10).map { index in
            .user(.init(contact: true, id: 1_000 + Int64(index), accessHash: Int64(bitPattern: rng.next()),
                        firstName: "User \(index)", username: "user\(index)", phone: "1555000\(index)",
                        status: .userStatusRecently(.init())))
        }
        let chats: [API.Chat] = [.channel(.init(
            broadcast: true, id: 4242, accessHash: Int64(bitPattern: rng.next()), title: "News", username: "news",
            photo: .chatPhotoEmpty(.init()), date: 1_700_000_000, participantsCount: 3
        ))]
        return .difference(.init(
            newMessages: messages, newEncryptedMessages: [],
            otherUpdates: [.updateReadHistoryInbox(.init(peer: .peerUser(.init(userId: 1_000)), maxId: 10_050, stillUnreadCount: 0, pts: 500, ptsCount: 1))],
            chats: chats, users: users,
            state: .state(.init(pts: 600, qts: 0, date: 1_700_001_000, seq: 20, unreadCount: 3))
        ))
    }
}

enum BenchError: Error, CustomStringConvertible {
    case mismatch(String)
    var description: String {
        switch self {
        case let .mismatch(reason): return "benchmark self-check failed: \(reason)"
        }
    }
}
