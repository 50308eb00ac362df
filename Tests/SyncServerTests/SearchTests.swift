import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// `messages.search` in a chat on both backends: a case-insensitive text match, newest first and paged as history;
/// by sender; pinned only (service messages never match); in a channel; and the refusals.
@Suite(.timeLimit(.minutes(2)))
struct SearchTests {
    private static func search(_ client: TestClient, in peer: API.InputPeer, _ query: String = "", from sender: API.InputPeer? = nil,
                               filter: API.MessagesFilter = .inputMessagesFilterEmpty(.init()), offsetID: Int32 = 0,
                               limit: Int32 = 20) async throws -> API.messages.Messages {
        try await client.call(API.functions.messages.Search(peer: peer, q: query, fromId: sender, filter: filter, minDate: 0, maxDate: 0,
                                                            offsetId: offsetID, addOffset: 0, limit: limit, maxId: 0, minId: 0, hash: 0))
    }

    private static func texts(_ answer: API.messages.Messages) -> [String] {
        let messages: [API.Message] = switch answer {
        case let .messages(value): value.messages
        case let .messagesSlice(value): value.messages
        case let .channelMessages(value): value.messages
        case .messagesNotModified: []
        }
        return messages.compactMap { if case let .message(value) = $0 { value.message } else { nil } }
    }

    @Test(arguments: StorageBackend.all) func textSenderPinnedAndChannelSearches(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let toBob = try await inputUser(1002, in: alice)
        let toAlice = try await inputUser(1001, in: bob)
        let first = try await send("Lunch at noon?", to: toBob, from: alice)
        _ = try await send("dinner instead", to: toBob, from: alice)
        let third = try await send("no, LUNCH", to: toBob, from: alice)
        _ = try await send("lunch it is", to: toAlice, from: bob)
        _ = try await alice.call(API.functions.messages.UpdatePinnedMessage(peer: toBob, id: first.id))

        #expect(Self.texts(try await Self.search(alice, in: toBob, "lunch")) == ["lunch it is", "no, LUNCH", "Lunch at noon?"])
        guard case let .messagesSlice(page) = try await Self.search(alice, in: toBob, "lunch", limit: 2) else {
            Issue.record("a page of 2 of 3 is a slice"); return
        }
        #expect(page.count == 3 && Self.texts(.messagesSlice(page)) == ["lunch it is", "no, LUNCH"])
        #expect(Self.texts(try await Self.search(alice, in: toBob, "lunch", offsetID: third.id)) == ["Lunch at noon?"])
        #expect(Self.texts(try await Self.search(alice, in: toBob, "lunch", from: toBob)) == ["lunch it is"])
        #expect(Self.texts(try await Self.search(alice, in: toBob, from: .inputPeerSelf(.init()))).count == 3)
        #expect(Self.texts(try await Self.search(alice, in: toBob, filter: .inputMessagesFilterPinned(.init()))) == ["Lunch at noon?"])
        #expect(Self.texts(try await Self.search(bob, in: toAlice, filter: .inputMessagesFilterPinned(.init()))) == ["Lunch at noon?"])
        #expect(Self.texts(try await Self.search(alice, in: toBob, "breakfast")).isEmpty)
        #expect(Self.texts(try await Self.search(alice, in: toBob, filter: .inputMessagesFilterPhotos(.init()))).isEmpty, "no media here")

        let lounge = try await inputChannel("lounge", in: alice)
        try await post("lunch in the lounge", to: lounge, from: alice)
        try await post("nothing to see", to: lounge, from: alice)
        #expect(Self.texts(try await Self.search(bob, in: peer(try await inputChannel("lounge", in: bob)), "LOUNGE")) == ["lunch in the lounge"])

        await expectRPCError("SEARCH_QUERY_EMPTY") { try await Self.search(alice, in: toBob, "  ") }
        await expectRPCError("FILTER_NOT_SUPPORTED") { try await Self.search(alice, in: toBob, filter: .inputMessagesFilterUrl(.init())) }
        await expectRPCError("PEER_ID_INVALID") { try await Self.search(alice, in: .inputPeerEmpty(.init()), "lunch") }
        await alice.close(); await bob.close()
        try await harness.stop()
    }
}
