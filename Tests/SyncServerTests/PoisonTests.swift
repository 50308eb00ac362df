import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Finding 2: nothing stored may make a later answer impossible. The worst input the server accepts — the longest
/// texts in 3-byte characters, 100 entities filling 16 KiB, the longest names, titles and about text — goes into
/// every table that renders into answers; the server restarts; the victim syncs with every method that renders those
/// rows, and each answers within its byte budget.
@Suite(.timeLimit(.minutes(4)))
struct PoisonTests {
    static let worstText = String(repeating: "€", count: InputLimits.messageLength)   // 12,288 bytes
    /// 100 text urls of 140 bytes: 15,608 bytes serialized, just under the 16 KiB cap.
    static let worstEntities: [API.MessageEntity] = (0..<100).map { index in
        .messageEntityTextUrl(.init(offset: Int32(index), length: 1, url: String(repeating: "u", count: 140)))
    }
    static let longName = String(repeating: "€", count: InputLimits.nameLength)
    static let messages = 60   // about 1.7 MB of private history: more than one page of every kind

    /// The raw answer to `function` and its size (the byte budgets are checked on what crossed the wire).
    static func raw<Function: TLFunction>(_ function: Function, on client: TestClient) async throws -> (Function.Result, Int) {
        let bytes = try await client.connection.callRaw(HostileInputTests.wrapped(function.serialized()), timeout: .seconds(30))
        return (try Function.Result.deserialize(bytes), bytes.count)
    }

    @Test(arguments: StorageBackend.all) func theWorstAcceptedInputStillRendersAfterARestart(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await inputUser(1002, in: alice)
        for _ in 0..<Self.messages {
            _ = try await alice.call(API.functions.messages.SendMessage(peer: bob, message: Self.worstText, randomId: .random(in: 1...Int64.max),
                                                                        entities: Self.worstEntities))
        }
        // A channel and a basic group with the longest title, about text and posts.
        let title = String(repeating: "€", count: InputLimits.titleLength)
        guard case let .updates(created) = try await alice.call(API.functions.channels.CreateChannel(
            broadcast: true, title: title, about: String(repeating: "€", count: InputLimits.aboutLength))),
              case .channel? = created.chats.first
        else { Issue.record("no channel"); return }
        let inputChannel = try await inputChannel("news", in: alice)   // public, owned by Alice: Bob can join it
        for _ in 0..<3 {
            _ = try await alice.call(API.functions.messages.SendMessage(peer: peer(inputChannel), message: Self.worstText,
                                                                        randomId: .random(in: 1...Int64.max), entities: Self.worstEntities))
        }
        let bobBefore = try await harness.loggedIn(bobPhone)
        _ = try await bobBefore.call(API.functions.channels.JoinChannel(channel: inputChannel))
        await bobBefore.close()
        guard case let .inputPeerUser(bobUser) = bob else { return }
        _ = try await alice.call(API.functions.messages.CreateChat(users: [.inputUser(.init(userId: bobUser.userId, accessHash: bobUser.accessHash))],
                                                                   title: title))
        // A sign-up with the longest names, who then writes to Bob.
        let dave = try await harness.client()
        guard case let .sentCode(code) = try await dave.call(API.functions.auth.SendCode(
            phoneNumber: "+15554444", apiId: 1, apiHash: "x", settings: .codeSettings(.init()))) else { return }
        _ = try await dave.call(API.functions.auth.SignIn(phoneNumber: "+15554444", phoneCodeHash: code.phoneCodeHash, phoneCode: "12345"))
        _ = try await dave.call(API.functions.auth.SignUp(phoneNumber: "+15554444", phoneCodeHash: code.phoneCodeHash,
                                                          firstName: Self.longName, lastName: Self.longName))
        _ = try await send(Self.worstText, to: try await inputUser(1002, in: dave), from: dave)
        await alice.close()
        await dave.close()

        try await harness.stop(removingData: false)
        let restarted = try await ServerHarness(backend: backend, directory: harness.directory, postgresURL: harness.postgresURL)
        let victim = try await restarted.loggedIn(bobPhone)

        // The whole private history by difference, in byte-bounded slices.
        var (pts, received, slices) = (Int32(0), 0, 0)
        while true {
            let (difference, size) = try await Self.raw(API.functions.updates.GetDifference(pts: pts, date: 0, qts: 0), on: victim)
            #expect(size <= Difference.pageBytes + InputLimits.largestMessageBytes + 64 * 1024)
            switch difference {
            case let .differenceSlice(slice):
                received += slice.newMessages.count
                slices += 1
                guard case let .state(state) = slice.intermediateState, state.pts > pts else { Issue.record("no progress"); return }
                pts = state.pts
                continue
            case let .difference(final):
                received += final.newMessages.count
            default:
                Issue.record("unexpected \(difference.constructorName)")
            }
            break
        }
        #expect(received == Self.messages + 2)   // Alice's, the group's creation, Dave's
        #expect(slices >= 1)

        // History pages are cut by bytes; paging on from the last message reaches every one.
        var (offset, seen) = (Int32(0), 0)
        while true {
            let (page, size) = try await Self.raw(API.functions.messages.GetHistory(
                peer: .inputPeerUser(.init(userId: 1001, accessHash: try await Self.accessHash(of: "alice", on: victim))),
                offsetId: offset, offsetDate: 0, addOffset: 0, limit: 100, maxId: 0, minId: 0, hash: 0), on: victim)
            #expect(size <= HistoryPaging.pageBytes + 64 * 1024)
            let messages: [API.Message]
            switch page {
            case let .messages(value): messages = value.messages
            case let .messagesSlice(value): messages = value.messages
            default: Issue.record("unexpected \(page.constructorName)"); return
            }
            guard let last = messages.last else { break }
            seen += messages.count
            guard case let .message(oldest) = last else { break }
            offset = oldest.id
        }
        #expect(seen == Self.messages)

        // Every other method that renders these rows answers (Alice's dialogs hold the channel of the longest title).
        let aliceAgain = try await restarted.loggedIn(alicePhone)
        for client in [victim, aliceAgain] {
            let (dialogs, _) = try await Self.raw(API.functions.messages.GetDialogs(
                offsetDate: 0, offsetId: 0, offsetPeer: .inputPeerEmpty(.init()), limit: 100, hash: 0), on: client)
            #expect(dialogs.constructorName.hasPrefix("messages.dialogs"))
        }
        await aliceAgain.close()
        let (channelDiff, _) = try await Self.raw(API.functions.updates.GetChannelDifference(
            channel: inputChannel, filter: .channelMessagesFilterEmpty(.init()), pts: 1, limit: 100), on: victim)
        #expect(channelDiff.constructorName.hasPrefix("updates.channelDifference"))
        let (byID, _) = try await Self.raw(API.functions.messages.GetMessages(id: (1...100).map { .inputMessageID(.init(id: $0)) }),
                                           on: victim)
        #expect(byID.constructorName.hasPrefix("messages.messages"))
        let (users, _) = try await Self.raw(API.functions.users.GetUsers(id: [.inputUserSelf(.init())]), on: victim)
        #expect(users.count == 1)
        let (chats, _) = try await Self.raw(API.functions.messages.GetChats(id: Array(1...100)), on: victim)
        #expect(chats.constructorName == "messages.chats")
        await victim.close()
        try await restarted.stop()
    }

    static func accessHash(of username: String, on client: TestClient) async throws -> Int64 {
        guard case let .resolvedPeer(resolved) = try await client.call(API.functions.contacts.ResolveUsername(username: username)),
              case let .user(user)? = resolved.users.first, let hash = user.accessHash
        else { throw TestClientError.unexpected("cannot resolve \(username)") }
        return hash
    }
}
