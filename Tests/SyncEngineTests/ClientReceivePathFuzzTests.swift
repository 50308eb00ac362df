import Foundation
import MTProto
import Postbox
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// Mutated server answers through the client's receive path: encrypted packets into `ClientSession` (containers,
/// gzip, rpc_result), pushes decoded as `Updates` into the `UpdateSequencer`, differences, channel differences and
/// history pages answering the calls the client made, and every batch of the sequencer's output applied to a real
/// Postbox (SQLite in a temporary directory) through `AccountMutation`. Answers are generated at random (valid TL,
/// hostile values) or realistic ones byte-mutated, sometimes packed, containered or with a hostile envelope.
///
/// 0 traps (a trap ends this process); every stored message renders back into the `Message` it was stored from; the
/// sequencer's buffers stay within their bounds. `SYNCCORE_FUZZ_FRAMES` sets the count (CI: 1,000,000).
@Suite(.timeLimit(.minutes(30)))
struct ClientReceivePathFuzzTests {
    static var frames: Int { ProcessInfo.processInfo.environment["SYNCCORE_FUZZ_FRAMES"].flatMap(Int.init) ?? 20_000 }
    static let me: Int64 = 1001

    enum Call { case difference, channelDifference(Int64), history }

    /// Realistic answers of a layer-229 server, to be mutated.
    static let realistic: [(Call?, [UInt8])] = {
        func message(_ id: Int32, channel: Int64? = nil) -> API.Message {
            .message(.init(id: id, fromId: .peerUser(.init(userId: 1002)),
                           peerId: channel.map { .peerChannel(.init(channelId: $0)) } ?? .peerUser(.init(userId: 1002)), date: 1_700_000_000 + id,
                           message: "message \(id)", entities: [.messageEntityBold(.init(offset: 0, length: 7))]))
        }
        let user = API.User.user(.init(id: 1002, accessHash: 5, firstName: "Bob"))
        let channel = API.Chat.channel(.init(broadcast: true, id: 2001, accessHash: 7, title: "News", photo: .chatPhotoEmpty(.init()),
                                             date: 1_700_000_000))
        return [
            (nil, API.Updates.updateShortMessage(.init(id: 5, userId: 1002, message: "hi", pts: 5, ptsCount: 1, date: 1_700_000_005)).serialized()),
            (nil, API.Updates.updates(.init(updates: [.updateNewMessage(.init(message: message(6), pts: 6, ptsCount: 1)),
                                                       .updateNewChannelMessage(.init(message: message(3, channel: 2001), pts: 3, ptsCount: 1)),
                                                       .updateDeleteMessages(.init(messages: [1, 2], pts: 8, ptsCount: 2))],
                                             users: [user], chats: [channel], date: 1_700_000_006, seq: 0)).serialized()),
            (nil, API.Updates.updateShort(.init(update: .updateReadHistoryInbox(.init(peer: .peerUser(.init(userId: 1002)), maxId: 6,
                                                                                     stillUnreadCount: 0, pts: 9, ptsCount: 1)),
                                                date: 1_700_000_007)).serialized()),
            (nil, API.Updates.updatesTooLong(.init()).serialized()),
            (.difference, API.updates.Difference.differenceSlice(.init(
                newMessages: (10..<20).map { message($0) }, newEncryptedMessages: [], otherUpdates: [.updateChannelTooLong(.init(channelId: 2001))],
                chats: [channel], users: [user],
                intermediateState: .state(.init(pts: 20, qts: 0, date: 1_700_000_020, seq: 0, unreadCount: 3)))).serialized()),
            (.difference, API.updates.Difference.differenceTooLong(.init(pts: 100_000)).serialized()),
            (.channelDifference(2001), API.updates.ChannelDifference.channelDifference(.init(
                final: true, pts: 12, newMessages: (4..<12).map { message($0, channel: 2001) }, otherUpdates: [], chats: [channel],
                users: [user])).serialized()),
            (.history, API.messages.Messages.messagesSlice(.init(count: 500, messages: (1..<30).map { message($0) }, topics: [],
                                                                 chats: [], users: [user])).serialized()),
        ]
    }()

    /// The state of the fuzzed client, all of it sans I/O but the Postbox.
    struct Client {
        var session: ClientSession<SplitMix64>
        var sequencer: UpdateSequencer
        var calls: [Int: Call] = [:]
        var outputs: [SequencerOutput] = []
        var history: [Message] = []
        var historyPeers: [Peer] = []
        var now = 1_700_000_000.0
    }

    @Test func mutatedServerAnswersThroughTheWholeReceivePathNeverTrap() async throws {
        let (postbox, directory) = try AccountMutationTests.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = try AuthKey(bytes: (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 3) })
        let seed = UInt64(ProcessInfo.processInfo.environment["SYNCCORE_FUZZ_SEED"].flatMap(UInt64.init) ?? 2_027)
        var rng = SplitMix64(seed: seed)
        var generator = TLArbitraryGenerator(seed: seed &+ 1, maximumDepth: 3)
        var client = Client(session: ClientSession(authKey: key, salt: 1, rng: SplitMix64(seed: seed &+ 2)),
                            sequencer: UpdateSequencer(state: SyncState(pts: 1, qts: 0, seq: 0, date: 1_700_000_000, channels: [2001: 1]),
                                                       peers: PeerKnowledge(users: [1002: 5], channels: [2001: 7]),
                                                       configuration: .init(selfID: Self.me), now: 1_700_000_000))
        client.outputs += client.sequencer.start(now: client.now)
        var serverIDs = MessageIDGenerator()
        var stored: Set<MessageID> = []

        let total = Self.frames
        let started = ContinuousClock.now
        for index in 0..<total {
            client.now += 0.01
            let packet = Self.packet(for: &client, key: key, serverIDs: &serverIDs, generator: &generator, rng: &rng)
            for event in client.session.receive(packet, now: client.now) { Self.handle(event, client: &client) }
            if let due = client.sequencer.nextDeadline, due <= client.now { client.outputs += client.sequencer.fireTimers(now: client.now) }
            if index % 500 == 499 || index == total - 1 {
                stored.formUnion(try await Self.commit(&client, to: postbox))
            }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("client receive-path fuzz: \(total) answers in \(String(format: "%.1f", seconds)) s (\(Int(Double(total) / seconds)) answers/s), "
              + "\(stored.count) messages stored, seed \(seed)")

        // Bounded buffers, and every stored message renders back.
        #expect(client.sequencer.gaps.values.allSatisfy { $0.items.count <= UpdateSequencer.possibleGapLimit })
        #expect(client.sequencer.postponedItems.count <= UpdateSequencer.possibleGapLimit)
        #expect(client.sequencer.postponedSeq.count <= UpdateSequencer.possibleGapLimit)
        #expect((client.sequencer.seqGap?.parts.count ?? 0) <= UpdateSequencer.possibleGapLimit)
        let storedIDs = stored
        let unreadable = try await postbox.read { transaction in
            try storedIDs.compactMap { id -> String? in
                guard let message = try transaction.message(id) else { return nil }   // deleted later: fine
                guard let decoded = try? API.Message.deserialize(message.attributes) else { return "\(id): does not decode" }
                guard let again = StoreMapping.message(decoded) else { return "\(id): maps to nothing" }
                if again.id != message.id { return "\(id): renders as \(again.id)" }
                if again.text != message.text { return "\(id): text \(again.text.utf8.count) ≠ \(message.text.utf8.count) bytes" }
                return nil
            }
        }
        #expect(unreadable.isEmpty, "\(unreadable.count) stored messages do not render back, e.g. \(unreadable.prefix(5))")
        #expect(stored.count > 100, "too few messages reached the store for the fuzz to mean much")
    }

    /// One encrypted packet from the "server": a push, or the answer to a call the client made (the client makes one
    /// when none is pending), mostly well-formed around a hostile body.
    static func packet(for client: inout Client, key: AuthKey, serverIDs: inout MessageIDGenerator, generator: inout TLArbitraryGenerator,
                       rng: inout SplitMix64) -> [UInt8] {
        var body: [UInt8]
        let (call, answer): (Call?, [UInt8])
        switch rng.next() % 8 {
        case 0: (call, answer) = (nil, API.Updates.arbitrary(using: &generator).serialized())
        case 1: (call, answer) = (.difference, API.updates.Difference.arbitrary(using: &generator).serialized())
        case 2: (call, answer) = (.channelDifference(2001), API.updates.ChannelDifference.arbitrary(using: &generator).serialized())
        case 3: (call, answer) = (.history, API.messages.Messages.arbitrary(using: &generator).serialized())
        default:
            let (kind, bytes) = realistic[Int(rng.next() % UInt64(realistic.count))]
            (call, answer) = (kind, rng.next() % 4 == 0 ? bytes : ByteMutator.mutate(bytes, using: &rng))
        }
        if let call {
            let request = API.functions.updates.GetState().serialized()
            let (token, sent) = client.session.call(request, now: client.now)
            client.calls[token] = call
            let requestID = Self.messageID(of: request, in: sent, key: key) ?? 0
            var writer = TLWriter()
            writer.writeUInt32(TLBuiltinID.rpcResult)
            writer.writeInt64(requestID)
            writer.writeRaw(answer.count > 512 && rng.next() % 2 == 0 ? GzipPacked.pack(answer) : answer)
            body = writer.bytes
        } else {
            body = answer.count > 512 && rng.next() % 2 == 0 ? GzipPacked.pack(answer) : answer
        }
        if rng.next() % 10 == 0 {
            body = MessageContainer.encode([ContainedMessage(messageID: serverIDs.next(.serverInitiated, now: client.now), seqno: 1, body: body),
                                            ContainedMessage(messageID: serverIDs.next(.serverInitiated, now: client.now), seqno: 3,
                                                             body: ByteMutator.mutate(body, using: &rng))])
        }
        var message = DecryptedMessage(salt: 1, sessionID: client.session.sessionID, messageID: serverIDs.next(.serverInitiated, now: client.now),
                                       seqno: 1, body: body)
        if rng.next() % 50 == 0 { message.sessionID = Int64(bitPattern: rng.next()) }
        let packet = EncryptedPacket.encrypt(message, authKey: key, direction: .serverToClient, using: &rng)
        return rng.next() % 100 == 0 ? ByteMutator.mutate(packet, using: &rng) : packet
    }

    /// The msg_id the client gave `request` in the packet it sent (alone, or in a container with its acks).
    static func messageID(of request: [UInt8], in packet: [UInt8], key: AuthKey) -> Int64? {
        guard let message = try? EncryptedPacket.decrypt(packet, authKey: key, direction: .clientToServer) else { return nil }
        guard let contained = (try? MessageContainer.decode(message.body)) ?? nil else { return message.messageID }
        return contained.first { $0.body == request }?.messageID
    }

    /// What the client does with one event of its session, as `AccountStateManager` and the hole filler do.
    static func handle(_ event: ClientSessionEvent, client: inout Client) {
        switch event {
        case let .update(bytes):
            guard let updates = try? API.Updates.deserialize(bytes) else {
                client.outputs += client.sequencer.sessionChanged(now: client.now)
                return
            }
            client.outputs += client.sequencer.push(updates, now: client.now)
        case let .result(token, .success(bytes)):
            switch client.calls.removeValue(forKey: token) {
            case .difference?:
                if let difference = try? API.updates.Difference.deserialize(bytes) {
                    client.outputs += client.sequencer.differenceReceived(difference, now: client.now)
                }
            case let .channelDifference(channel)?:
                if let difference = try? API.updates.ChannelDifference.deserialize(bytes) {
                    client.outputs += client.sequencer.channelDifferenceReceived(channel, difference, now: client.now)
                }
            case .history?:
                if let page = try? API.messages.Messages.deserialize(bytes) {
                    client.history += page.messages.compactMap(StoreMapping.message)
                    client.historyPeers += StoreMapping.peers(users: page.users, chats: page.chats)
                }
            case nil:
                break
            }
        case let .result(token, .failure), let .rejected(token, _):
            client.calls[token] = nil
        default:
            break
        }
    }

    /// One transaction for what piled up: the sequencer's outputs with its state, and history pages. Returns the ids
    /// of the messages it stored.
    static func commit(_ client: inout Client, to postbox: Postbox) async throws -> Set<MessageID> {
        let mutation = AccountMutation(client.outputs, state: client.sequencer.state)
        let (history, peers) = (client.history, client.historyPeers)
        var ids = Set(history.map(\.id))
        for case let .deliver(update) in client.outputs {
            for message in messages(in: update) { if let stored = StoreMapping.message(message) { ids.insert(stored.id) } }
        }
        client.outputs.removeAll()
        client.history.removeAll()
        client.historyPeers.removeAll()
        _ = try await postbox.transaction { transaction in
            try mutation.apply(transaction)
            try StoreMapping.store(peers, in: transaction)
            if !history.isEmpty { try transaction.addMessages(history) }
        }
        return ids
    }

    static func messages(in update: API.Update) -> [API.Message] {
        switch update {
        case let .updateNewMessage(value): [value.message]
        case let .updateNewChannelMessage(value): [value.message]
        case let .updateEditMessage(value): [value.message]
        case let .updateEditChannelMessage(value): [value.message]
        default: []
        }
    }
}
