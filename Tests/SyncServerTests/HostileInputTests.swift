import Foundation
import MTProto
import MTProtoNIO
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Issue findings 1, 2 and 4 replayed over real sockets against an in-process server: each hostile request gets a
/// typed `rpc_error`, and the server still serves an ordinary call from another user afterwards.
@Suite(.timeLimit(.minutes(3)))
struct HostileInputTests {
    /// `body` (a serialized function) wrapped the way a client's first call on a connection is.
    static func wrapped(_ body: [UInt8]) -> [UInt8] {
        var writer = TLWriter()
        writer.writeUInt32(API.functions.InvokeWithLayer<TLAnyFunction>.constructorID)
        writer.writeInt32(229)
        writer.writeRaw(body)
        return writer.bytes
    }

    /// The rpc_error a raw call ends in (nil when it succeeded).
    static func rpcError(_ body: [UInt8], on client: TestClient) async -> RPCError? {
        do {
            _ = try await client.connection.callRaw(body, timeout: .seconds(20))
            return nil
        } catch let MTProtoClientError.rpc(error) {
            return error
        } catch {
            return RPCError(code: -1, message: "\(error)")
        }
    }

    /// A `messages.sendMessage` whose only entity is a `messageEntityTextUrl` with `urlBytes` of url, where every
    /// 'a' of the url is replaced by `urlByte` (0xff: not UTF-8).
    static func sendWithURL(to peer: API.InputPeer, urlBytes: Int, urlByte: UInt8) -> [UInt8] {
        let url = String(repeating: "a", count: urlBytes)
        let call = API.functions.messages.SendMessage(peer: peer, message: "hello", randomId: .random(in: 1...Int64.max),
                                                      entities: [.messageEntityTextUrl(.init(offset: 0, length: 5, url: url))])
        var bytes = call.serialized()
        let marker = [UInt8](repeating: UInt8(ascii: "a"), count: urlBytes)
        if let start = bytes.firstRange(of: marker)?.lowerBound {
            for index in start..<start + urlBytes { bytes[index] = urlByte }
        }
        return bytes
    }

    /// Bob can still talk to Alice: the server is alive and serving.
    static func expectServing(_ harness: ServerHarness) async throws {
        let bob = try await harness.loggedIn(bobPhone)
        let sent = try await send("still here", to: try await inputUser(1001, in: bob), from: bob)
        #expect(sent.pts > 0)
        await bob.close()
    }

    @Test func invalidUTF8IsRefusedAndAStringThatWouldGrowNeverTraps() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await inputUser(1002, in: alice)
        // Finding 1: invalid UTF-8 used to be repaired to 3 bytes a byte and trapped on re-encoding.
        let invalid = Self.sendWithURL(to: bob, urlBytes: 300, urlByte: 0xff)
        #expect(await Self.rpcError(Self.wrapped(invalid), on: alice)?.message == "INPUT_FETCH_ERROR")
        // The 6 MB version, compressed into one small frame, never inflates past the packet's budget.
        let bomb = GzipPacked.pack(Self.wrapped(Self.sendWithURL(to: bob, urlBytes: 6 << 20, urlByte: 0xff)))
        #expect(bomb.count < 1 << 20)
        #expect(await Self.rpcError(bomb, on: alice)?.message == "INPUT_FETCH_ERROR")
        // Sign-up names take the same path.
        var signUp = API.functions.auth.SignUp(phoneNumber: "+15557777", phoneCodeHash: "x", firstName: "ab", lastName: "").serialized()
        if let name = signUp.firstRange(of: Array("ab".utf8))?.lowerBound { signUp[name] = 0xc3 }
        #expect(await Self.rpcError(Self.wrapped(signUp), on: alice)?.message == "INPUT_FETCH_ERROR")
        try await Self.expectServing(harness)
        await alice.close()
        try await harness.stop()
    }

    @Test func textAndEntityLimitsAreTelegramsInUTF16UnitsAndBytes() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await inputUser(1002, in: alice)
        func attempt(_ text: String, _ entities: [API.MessageEntity]? = nil) async -> String? {
            let call = API.functions.messages.SendMessage(peer: bob, message: text, randomId: .random(in: 1...Int64.max), entities: entities)
            return await Self.rpcError(Self.wrapped(call.serialized()), on: alice)?.message
        }
        // 4,096 units pass whatever their bytes; 4,097 do not; an emoji is two units.
        #expect(await attempt(String(repeating: "€", count: 4_096)) == nil)
        #expect(await attempt(String(repeating: "a", count: 4_097)) == "MESSAGE_TOO_LONG")
        #expect(await attempt(String(repeating: "🙂", count: 2_049)) == "MESSAGE_TOO_LONG")
        #expect(await attempt(String(repeating: "🙂", count: 2_048)) == nil)
        // Entities: inside the text, positive, at most 100 and 16 KiB.
        let bold = { (offset: Int32, length: Int32) in API.MessageEntity.messageEntityBold(.init(offset: offset, length: length)) }
        #expect(await attempt("hello", [bold(0, 5)]) == nil)
        #expect(await attempt("hello", [bold(1, 5)]) == "ENTITY_BOUNDS_INVALID")
        #expect(await attempt("hello", [bold(-1, 2)]) == "ENTITY_BOUNDS_INVALID")
        #expect(await attempt("hello", [bold(0, 0)]) == "ENTITY_BOUNDS_INVALID")
        #expect(await attempt("hello", [bold(Int32.max, Int32.max)]) == "ENTITY_BOUNDS_INVALID")
        #expect(await attempt("hello", Array(repeating: bold(0, 1), count: 101)) == "ENTITIES_TOO_LONG")
        let longURL = API.MessageEntity.messageEntityTextUrl(.init(offset: 0, length: 5, url: String(repeating: "u", count: 20_000)))
        #expect(await attempt("hello", [longURL]) == "ENTITIES_TOO_LONG")
        // Blockquotes carry flags before their bounds.
        #expect(await attempt("hello", [.messageEntityBlockquote(.init(offset: 0, length: 6))]) == "ENTITY_BOUNDS_INVALID")
        #expect(await attempt("hello", [.messageEntityBlockquote(.init(collapsed: true, offset: 0, length: 5))]) == nil)
        // Names, titles, phones, id lists.
        let title = String(repeating: "t", count: 129)
        let channel = API.functions.channels.CreateChannel(broadcast: true, title: title, about: "")
        #expect(await Self.rpcError(Self.wrapped(channel.serialized()), on: alice)?.message == "CHAT_TITLE_TOO_LONG")
        let about = API.functions.channels.CreateChannel(broadcast: true, title: "t", about: String(repeating: "a", count: 256))
        #expect(await Self.rpcError(Self.wrapped(about.serialized()), on: alice)?.message == "CHAT_ABOUT_TOO_LONG")
        let phone = API.functions.auth.SendCode(phoneNumber: String(repeating: "1", count: 600_000), apiId: 1, apiHash: "x",
                                                settings: .codeSettings(.init()))
        #expect(await Self.rpcError(Self.wrapped(phone.serialized()), on: alice)?.message == "PHONE_NUMBER_INVALID")
        let delete = API.functions.messages.DeleteMessages(id: Array(1...200_000))
        #expect(await Self.rpcError(Self.wrapped(delete.serialized()), on: alice)?.message == "LIMIT_INVALID")
        // An absurd add_offset is refused (a skip reads an index entry per row: at most HistoryPaging.maximumSkip of
        // them), the deepest allowed one is an empty page past the end, and a limit past 100 is 100.
        let absurd = API.functions.messages.GetHistory(peer: bob, offsetId: 0, offsetDate: 0, addOffset: .max, limit: .max, maxId: 0,
                                                       minId: 0, hash: 0)
        #expect(await Self.rpcError(Self.wrapped(absurd.serialized()), on: alice)?.message == "OFFSET_INVALID")
        let far = API.functions.messages.GetHistory(peer: bob, offsetId: 0, offsetDate: 0, addOffset: HistoryPaging.maximumSkip,
                                                    limit: .max, maxId: 0, minId: 0, hash: 0)
        guard case let .messagesSlice(page) = try await alice.call(far) else { Issue.record("no slice"); return }
        #expect(page.messages.isEmpty && page.count >= 4 && !page.inexact)
        let all = API.functions.messages.GetHistory(peer: bob, offsetId: 0, offsetDate: 0, addOffset: .min, limit: .max, maxId: 0,
                                                    minId: 0, hash: 0)
        #expect(try await alice.call(all).constructorName.hasPrefix("messages.messages"))
        try await Self.expectServing(harness)
        await alice.close()
        try await harness.stop()
    }

    @Test func gzipOpensOnceWithinOneBudgetPerPacket() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let getState = Self.wrapped(API.functions.updates.GetState().serialized())
        // An ordinary compressed call works.
        #expect(await Self.rpcError(GzipPacked.pack(getState), on: alice) == nil)
        // gzip inside gzip, and a container inside gzip, are not what MTProto allows.
        #expect(await Self.rpcError(GzipPacked.pack(GzipPacked.pack(getState)), on: alice)?.message == "INPUT_FETCH_ERROR")
        let container = MessageContainer.encode([ContainedMessage(messageID: 4, seqno: 1, body: getState)])
        #expect(await Self.rpcError(GzipPacked.pack(container), on: alice)?.message == "INPUT_FETCH_ERROR")
        // Finding 4: 30 sendCode of a 15 MiB phone number inflate no further than the budget.
        let hugePhone = API.functions.auth.SendCode(phoneNumber: String(repeating: "1", count: 15 << 20), apiId: 1, apiHash: "x",
                                                    settings: .codeSettings(.init()))
        let packed = GzipPacked.pack(Self.wrapped(hugePhone.serialized()))
        for _ in 0..<30 { #expect(await Self.rpcError(packed, on: alice)?.message == "INPUT_FETCH_ERROR") }
        try await Self.expectServing(harness)
        await alice.close()
        try await harness.stop()
    }

    /// Finding 4's frame: one packet holding a container of 100 gzip bombs, each inflating to 900 KB (90 MB in all,
    /// which cost 40 s of CPU before). The packet's budget (1 MiB) is spent by the first: every later item is refused
    /// without inflating, and each call still gets its answer.
    @Test func aContainerOfBombsCostsOneBudget() throws {
        typealias Session = ServerSession<SystemRandomNumberGenerator>
        let key = try AuthKey(bytes: (0..<256).map { UInt8($0) })
        let now = Date().timeIntervalSince1970
        var session = Session(authKey: key, salt: 7, createdAt: Int32(now), rng: SystemRandomNumberGenerator())
        let bomb = GzipPacked.pack([UInt8](repeating: 0, count: 900 * 1024))
        let base = Int64(now) << 32
        let items = (1...100).map { ContainedMessage(messageID: base + Int64($0) * 4, seqno: Int32($0) * 2 - 1, body: bomb) }
        var rng = SystemRandomNumberGenerator()
        let packet = EncryptedPacket.encrypt(DecryptedMessage(salt: 7, sessionID: 1, messageID: base + 404 * 4, seqno: 200,
                                                              body: MessageContainer.encode(items)),
                                             authKey: key, direction: .clientToServer, using: &rng)
        #expect(packet.count < 1 << 20)   // one frame
        var errors: [String] = []
        for case let .send(answer) in session.receive(packet, now: now) {
            let message = try EncryptedPacket.decrypt(answer, authKey: key, direction: .serverToClient)
            for body in try MessageContainer.decode(message.body)?.map(\.body) ?? [message.body] {
                var reader = TLReader(body)
                guard try reader.readUInt32() == TLBuiltinID.rpcResult else { continue }
                _ = try reader.readInt64()
                if case let .rpcError(error) = try MT.RpcError.deserialize(body[reader.offset...]) { errors.append(error.errorMessage) }
            }
        }
        #expect(errors.count == 100)
        #expect(errors.first == "INPUT_METHOD_INVALID_0")   // the one that inflated: 900 KB of zeros is no function
        #expect(errors.dropFirst().allSatisfy { $0 == "INPUT_FETCH_ERROR" })
    }
}
