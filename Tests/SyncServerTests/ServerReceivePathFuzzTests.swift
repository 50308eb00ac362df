import Foundation
import Logging
import MTProto
import NIOCore
import NIOPosix
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Mutated frames through the server's whole receive path over real sockets: intermediate framing → decryption with
/// a logged-in user's key → session (msg_ids, salts, containers, gzip) → TL → the RPC handlers → SQLite in a temporary
/// directory. Bodies are calls of every method the server answers, generated at random (structure-aware: valid TL,
/// hostile values), or real calls of Alice, Bob and Carol byte-mutated, or service messages; envelopes are sometimes
/// wrong too (salt, msg_id, seqno, the ciphertext itself). 0 traps: a trap would end this process. Afterwards a
/// normal user still logs in and sends. `SYNCCORE_FUZZ_FRAMES` sets the count (CI: 1,000,000); frames/s is printed.
@Suite(.timeLimit(.minutes(30)))
struct ServerReceivePathFuzzTests {
    static var frames: Int { ProcessInfo.processInfo.environment["SYNCCORE_FUZZ_FRAMES"].flatMap(Int.init) ?? 20_000 }

    /// One raw connection on a user's key and a session of its own, whose answers are read and dropped, and a spare
    /// connection for frames whose ciphertext is mutated (the server closes a connection for some of those, and what
    /// was in flight behind them on it would be lost).
    final class Sender {
        let key: AuthKey
        let salt: Int64
        let sessionID: Int64
        var ids = MessageIDGenerator()
        var spareIDs = MessageIDGenerator()
        var seqno: Int32 = 1
        var channel: any Channel
        var spare: any Channel
        let port: Int

        init(key: AuthKeyExchangeResult, port: Int, sessionID: Int64) async throws {
            self.key = key.authKey
            salt = key.serverSalt
            self.sessionID = sessionID
            self.port = port
            channel = try await Self.connect(port: port)
            spare = try await Self.connect(port: port)
        }

        static func connect(port: Int) async throws -> any Channel {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
                .connect(host: "127.0.0.1", port: port).get()
            try await channel.writeAndFlush(channel.allocator.buffer(bytes: [0xee, 0xee, 0xee, 0xee])).get()
            return channel
        }

        /// Writes frames, those with a mutated ciphertext on the spare connection; a spare the server closed (as it
        /// should for some of them) is opened again. Returns the number of reconnections.
        func send(_ frames: [(bytes: [UInt8], spare: Bool)]) async throws -> Int {
            var reconnects = 0
            for spare in [false, true] {
                let chosen = frames.filter { $0.spare == spare }.map(\.bytes)
                guard !chosen.isEmpty else { continue }
                var buffer = channel.allocator.buffer(capacity: chosen.reduce(0) { $0 + $1.count + 4 })
                for frame in chosen {
                    buffer.writeInteger(UInt32(frame.count), endianness: .little)
                    buffer.writeBytes(frame)
                }
                do {
                    try await (spare ? self.spare : channel).writeAndFlush(buffer).get()
                } catch {
                    if spare { self.spare = try await Self.connect(port: port) } else { channel = try await Self.connect(port: port) }
                    reconnects += 1
                }
            }
            return reconnects
        }
    }

    /// A call of each method the server answers, with random arguments.
    static let generated: [@Sendable (inout TLArbitraryGenerator) -> [UInt8]] = [
        { API.functions.messages.SendMessage.arbitrary(using: &$0).serialized() },
        { API.functions.messages.ReadHistory.arbitrary(using: &$0).serialized() },
        { API.functions.messages.SetTyping.arbitrary(using: &$0).serialized() },
        { API.functions.help.GetConfig.arbitrary(using: &$0).serialized() },
        { API.functions.help.GetNearestDc.arbitrary(using: &$0).serialized() },
        { API.functions.users.GetUsers.arbitrary(using: &$0).serialized() },
        { API.functions.users.GetFullUser.arbitrary(using: &$0).serialized() },
        { API.functions.contacts.ResolveUsername.arbitrary(using: &$0).serialized() },
        { API.functions.messages.EditMessage.arbitrary(using: &$0).serialized() },
        { API.functions.messages.DeleteMessages.arbitrary(using: &$0).serialized() },
        { API.functions.messages.GetHistory.arbitrary(using: &$0).serialized() },
        { API.functions.messages.GetMessages.arbitrary(using: &$0).serialized() },
        { API.functions.channels.GetMessages.arbitrary(using: &$0).serialized() },
        { API.functions.messages.GetDialogs.arbitrary(using: &$0).serialized() },
        { API.functions.channels.CreateChannel.arbitrary(using: &$0).serialized() },
        { API.functions.channels.JoinChannel.arbitrary(using: &$0).serialized() },
        { API.functions.channels.LeaveChannel.arbitrary(using: &$0).serialized() },
        { API.functions.channels.GetChannels.arbitrary(using: &$0).serialized() },
        { API.functions.channels.ReadHistory.arbitrary(using: &$0).serialized() },
        { API.functions.channels.DeleteMessages.arbitrary(using: &$0).serialized() },
        { API.functions.updates.GetState.arbitrary(using: &$0).serialized() },
        { API.functions.updates.GetDifference.arbitrary(using: &$0).serialized() },
        { API.functions.updates.GetChannelDifference.arbitrary(using: &$0).serialized() },
        { API.functions.messages.CreateChat.arbitrary(using: &$0).serialized() },
        { API.functions.messages.GetChats.arbitrary(using: &$0).serialized() },
        { API.functions.auth.ExportAuthorization.arbitrary(using: &$0).serialized() },
        { API.functions.auth.ImportAuthorization.arbitrary(using: &$0).serialized() },
        { API.functions.auth.SendCode.arbitrary(using: &$0).serialized() },
        { API.functions.auth.SignIn.arbitrary(using: &$0).serialized() },
        { API.functions.auth.SignUp.arbitrary(using: &$0).serialized() },
        { API.functions.upload.SaveFilePart.arbitrary(using: &$0).serialized() },
        { API.functions.upload.SaveBigFilePart.arbitrary(using: &$0).serialized() },
        { API.functions.upload.GetFile.arbitrary(using: &$0).serialized() },
        { API.functions.messages.SendMedia.arbitrary(using: &$0).serialized() },
        { API.functions.messages.SendMultiMedia.arbitrary(using: &$0).serialized() },
        { API.functions.messages.UploadMedia.arbitrary(using: &$0).serialized() },
    ]

    /// Real calls with real peers: mutated, these reach deeper than random ones.
    static func realCalls(alice: API.InputPeer, bob: API.InputPeer, news: API.InputChannel) -> [[UInt8]] {
        let calls: [any TLFunction] = [
            API.functions.messages.SendMessage(peer: bob, message: "hello", randomId: 7,
                                               entities: [.messageEntityBold(.init(offset: 0, length: 5))]),
            API.functions.messages.SendMessage(peer: peer(news), message: "post", randomId: 8),
            API.functions.messages.GetHistory(peer: bob, offsetId: 0, offsetDate: 0, addOffset: -5, limit: 20, maxId: 0, minId: 0, hash: 0),
            API.functions.messages.GetHistory(peer: peer(news), offsetId: 10, offsetDate: 0, addOffset: 3, limit: 100, maxId: 0, minId: 0, hash: 0),
            API.functions.updates.GetDifference(pts: 1, date: 0, qts: 0),
            API.functions.updates.GetChannelDifference(channel: news, filter: .channelMessagesFilter(.init(ranges: [.messageRange(.init(minId: 1, maxId: 9))])),
                                                       pts: 1, limit: 100),
            API.functions.messages.EditMessage(peer: bob, id: 1, message: "edited"),
            API.functions.messages.DeleteMessages(revoke: true, id: [1, 2, 3]),
            API.functions.messages.ReadHistory(peer: bob, maxId: 5),
            API.functions.messages.GetDialogs(offsetDate: 0, offsetId: 0, offsetPeer: alice, limit: 50, hash: 0),
            API.functions.channels.JoinChannel(channel: news),
            API.functions.channels.ReadHistory(channel: news, maxId: 3),
            API.functions.messages.CreateChat(users: [.inputUserSelf(.init())], title: "group"),
            API.functions.auth.SendCode(phoneNumber: "+15559000", apiId: 1, apiHash: "x", settings: .codeSettings(.init())),
            API.functions.upload.SaveFilePart(fileId: 5, filePart: 0, bytes: Data(repeating: 7, count: 4_096)),
            API.functions.upload.SaveBigFilePart(fileId: 6, filePart: 1, fileTotalParts: 3, bytes: Data(repeating: 7, count: 8_192)),
            API.functions.messages.SendMedia(peer: bob, media: .inputMediaUploadedDocument(.init(
                file: .inputFile(.init(id: 5, parts: 1, name: "a.bin", md5Checksum: "")), mimeType: "text/plain",
                attributes: [.documentAttributeFilename(.init(fileName: "a.txt"))])), message: "file", randomId: 9),
            API.functions.messages.SendMedia(peer: bob, media: .inputMediaUploadedPhoto(.init(
                file: .inputFile(.init(id: 5, parts: 1, name: "a.jpg", md5Checksum: "")))), message: "", randomId: 10),
            API.functions.upload.GetFile(location: .inputDocumentFileLocation(.init(id: 1, accessHash: 2, fileReference: Data([2]),
                                                                                    thumbSize: "")), offset: 0, limit: 4_096),
        ]
        return calls.map { call in
            var writer = TLWriter()
            writer.writeUInt32(API.functions.InvokeWithLayer<TLAnyFunction>.constructorID)
            writer.writeInt32(229)
            call.encode(to: &writer)
            return writer.bytes
        }
    }

    static let service: [[UInt8]] = [
        MT.functions.Ping(pingId: 1).serialized(),
        MT.MsgsAck.msgsAck(.init(msgIds: [1, 2])).serialized(), MT.functions.GetFutureSalts(num: 64).serialized(),
        MT.MsgsStateReq.msgsStateReq(.init(msgIds: [1, 2, 3])).serialized(), MT.functions.DestroySession(sessionId: 5).serialized(),
        MT.functions.RpcDropAnswer(reqMsgId: 1).serialized(),
    ]

    /// Frames per server: a fresh one (new data directory) takes over after each segment, so that what the fuzz stored
    /// (thousands of messages that every difference then reads) does not make each later frame slower than the last.
    static let segment = 200_000

    @Test func mutatedFramesThroughTheWholeReceivePathNeverTrap() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SYNCCORE_FUZZ_SEED"].flatMap(UInt64.init) ?? 2_026)
        var generator = TLArbitraryGenerator(seed: seed, maximumDepth: 3)
        var rng = SplitMix64(seed: seed &+ 1)
        let total = Self.frames
        var (sent, reconnects, answered, seconds) = (0, 0, 0, 0.0)
        while sent < total {
            let result = try await Self.runSegment(frames: min(Self.segment, total - sent), generator: &generator, rng: &rng)
            sent += result.sent
            reconnects += result.reconnects
            answered += result.answered
            seconds += result.seconds
        }
        print("server receive-path fuzz: \(sent) frames in \(String(format: "%.1f", seconds)) s (\(Int(Double(sent) / seconds)) frames/s), "
              + "\(reconnects) reconnects, \(answered) calls answered, seed \(seed)")
        #expect(sent == total)
        #expect(answered > total / 5, "too few frames reached the handlers for the fuzz to mean much")
    }

    /// One server: `frames` frames from four users' sessions, then a normal user must still log in and send.
    static func runSegment(frames total: Int, generator: inout TLArbitraryGenerator,
                           rng: inout SplitMix64) async throws -> (sent: Int, reconnects: Int, answered: Int, seconds: Double) {
        let harness = try await ServerHarness()
        var keys: [AuthKeyExchangeResult] = []
        var corpus: [[UInt8]] = []
        for phone in [alicePhone, bobPhone, carolPhone] {
            let client = try await harness.loggedIn(phone)
            if corpus.isEmpty {
                corpus = Self.realCalls(alice: .inputPeerSelf(.init()), bob: try await inputUser(1002, in: client),
                                        news: try await inputChannel("news", in: client))
            }
            keys.append(client.connection.key)
            await client.close()
        }
        var senders: [Sender] = []
        for (index, key) in (keys + keys.prefix(1)).enumerated() {
            senders.append(try await Sender(key: key, port: harness.server.port, sessionID: Int64(index + 1) * 7_919))
        }
        let before = harness.server.context.callsAnswered.load(ordering: .relaxed)
        let started = ContinuousClock.now
        var (sent, reconnects) = (0, 0)
        while sent < total {
            let sender = senders[sent / 64 % senders.count]
            var batch: [(bytes: [UInt8], spare: Bool)] = []
            for _ in 0..<min(64, total - sent) {
                batch.append(Self.frame(for: sender, corpus: corpus, generator: &generator, rng: &rng))
                sent += 1
            }
            reconnects += try await sender.send(batch)
        }
        // Until the server has worked through what it read: its count of answered calls stops moving.
        var answered = -1
        while answered != harness.server.context.callsAnswered.load(ordering: .relaxed) {
            answered = harness.server.context.callsAnswered.load(ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(500))
        }
        for sender in senders {
            try? await sender.channel.close()
            try? await sender.spare.close()
        }
        let elapsed = (ContinuousClock.now - started).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18 - 0.5

        // Still serving: a user logs in and sends.
        let carol = try await harness.loggedIn(carolPhone)
        let sentMessage = try await send("after the fuzz", to: try await inputUser(1001, in: carol), from: carol)
        #expect(sentMessage.pts > 0)
        await carol.close()
        try await harness.stop()
        return (sent, reconnects, answered - before, seconds)
    }

    /// One encrypted frame: mostly a valid envelope around a hostile body, sometimes a hostile envelope.
    static func frame(for sender: Sender, corpus: [[UInt8]], generator: inout TLArbitraryGenerator,
                      rng: inout SplitMix64) -> (bytes: [UInt8], spare: Bool) {
        let now = Date().timeIntervalSince1970
        let body: [UInt8]
        switch rng.next() % 10 {
        case 0...3: body = generated[Int(rng.next() % UInt64(generated.count))](&generator)
        case 4...7: body = ByteMutator.mutate(corpus[Int(rng.next() % UInt64(corpus.count))], using: &rng)
        default: body = ByteMutator.mutate(service[Int(rng.next() % UInt64(service.count))], using: &rng)
        }
        // The spare carries a session of its own: one session's msg_ids arriving over two connections, one far behind
        // the other, are refused as too old (20) once the other's have filled the replay window.
        let closing = rng.next() % 100 == 0
        let spare = closing || rng.next() % 100 == 0
        var message = DecryptedMessage(salt: sender.salt, sessionID: sender.sessionID + (spare ? 1 : 0),
                                       messageID: spare ? sender.spareIDs.next(.client, now: now) : sender.ids.next(.client, now: now),
                                       seqno: sender.seqno, body: body)
        sender.seqno += 2
        switch rng.next() % 40 {
        case 0: message.salt = Int64(bitPattern: rng.next())
        case 1: message.messageID = Int64(bitPattern: rng.next())
        // Lower than the session's: refused and not remembered (a higher one would refuse every later message).
        case 2: message.seqno = Int32.random(in: Int32.min..<max(Int32.min + 1, sender.seqno - 2), using: &rng)
        default: break
        }
        // A mutated ping_delay_disconnect asks the server to close the connection at once: those go on the spare.
        if closing { message.body = ByteMutator.mutate(MT.functions.PingDelayDisconnect(pingId: 2, disconnectDelay: 75).serialized(), using: &rng) }
        let packet = EncryptedPacket.encrypt(message, authKey: sender.key, direction: .clientToServer, using: &rng)
        return spare && !closing ? (ByteMutator.mutate(packet, using: &rng), true) : (packet, spare)   // the ciphertext itself
    }
}
