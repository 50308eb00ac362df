import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Media in the rest of the messaging: the search filters find each kind, an edit replaces the media, a forward
/// carries it, and a retried send does not use its upload twice.
@Suite(.timeLimit(.minutes(3)))
struct MediaSearchTests {
    static func sendDocument(_ attributes: [API.DocumentAttribute], mime: String = "application/octet-stream", caption: String = "",
                     to peer: API.InputPeer, from client: TestClient, randomID: Int64 = .random(in: 1...Int64.max)) async throws -> API.Updates {
        let file = try await MediaSupport.upload(MediaSupport.bytes(count: 5_000, seed: UInt64(randomID & 0xFFFF)), from: client)
        return try await client.call(API.functions.messages.SendMedia(
            peer: peer, media: .inputMediaUploadedDocument(.init(file: file, mimeType: mime, attributes: attributes)),
            message: caption, randomId: randomID))
    }

    static func found(_ filter: API.MessagesFilter, in peer: API.InputPeer, by client: TestClient) async throws -> [String] {
        guard case let .messages(result) = try await client.call(API.functions.messages.Search(
            peer: peer, q: "", filter: filter, minDate: 0, maxDate: 0, offsetId: 0, addOffset: 0, limit: 100, maxId: 0, minId: 0, hash: 0))
        else { return [] }
        return result.messages.compactMap { if case let .message(m) = $0 { m.message } else { nil } }.sorted()
    }

    @Test(arguments: StorageBackend.all) func theMediaFiltersFindEachKind(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await inputUser(1002, in: alice)
        _ = try await send("plain text", to: bob, from: alice)
        _ = try await Self.sendDocument([], caption: "a file", to: bob, from: alice)
        _ = try await Self.sendDocument([.documentAttributeVideo(.init(duration: 2, w: 320, h: 240))], caption: "a video", to: bob, from: alice)
        _ = try await Self.sendDocument([.documentAttributeVideo(.init(roundMessage: true, duration: 2, w: 240, h: 240))], caption: "a round video",
                                to: bob, from: alice)
        _ = try await Self.sendDocument([.documentAttributeAudio(.init(duration: 60, title: "Song"))], caption: "a song", to: bob, from: alice)
        _ = try await Self.sendDocument([.documentAttributeAudio(.init(voice: true, duration: 3))], caption: "a voice note", to: bob, from: alice)
        _ = try await Self.sendDocument([.documentAttributeAnimated(.init()), .documentAttributeVideo(.init(duration: 1, w: 100, h: 100))], caption: "a gif",
                                to: bob, from: alice)
        let jpeg = try #require(PhotoProcessing.jpeg(rgb: PhotoProcessingTests.gradient(width: 200, height: 100), width: 200, height: 100))
        _ = try await alice.call(API.functions.messages.SendMedia(
            peer: bob, media: .inputMediaUploadedPhoto(.init(file: try await MediaSupport.upload(jpeg, from: alice))), message: "a photo",
            randomId: .random(in: 1...Int64.max)))

        #expect(try await Self.found(.inputMessagesFilterPhotos(.init()), in: bob, by: alice) == ["a photo"])
        #expect(try await Self.found(.inputMessagesFilterVideo(.init()), in: bob, by: alice) == ["a video"])
        #expect(try await Self.found(.inputMessagesFilterPhotoVideo(.init()), in: bob, by: alice) == ["a photo", "a video"])
        #expect(try await Self.found(.inputMessagesFilterDocument(.init()), in: bob, by: alice) == ["a file"])
        #expect(try await Self.found(.inputMessagesFilterMusic(.init()), in: bob, by: alice) == ["a song"])
        #expect(try await Self.found(.inputMessagesFilterVoice(.init()), in: bob, by: alice) == ["a voice note"])
        #expect(try await Self.found(.inputMessagesFilterRoundVoice(.init()), in: bob, by: alice) == ["a round video", "a voice note"])
        #expect(try await Self.found(.inputMessagesFilterGif(.init()), in: bob, by: alice) == ["a gif"])
        #expect(try await Self.found(.inputMessagesFilterGeo(.init()), in: bob, by: alice) == [])
        await alice.close()
        try await harness.stop()
    }

    @Test func anEditReplacesTheMediaAndAForwardCarriesIt() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let toBob = try await inputUser(1002, in: alice)
        let sent = try await Self.sendDocument([], caption: "first version", to: toBob, from: alice)
        guard case let .updates(value) = sent, case let .updateMessageID(sentID)? = value.updates.first else { Issue.record("no id"); return }
        let first = try #require(MediaSupport.document(in: sent))
        _ = try await bob.nextPush()

        let replacement = try await MediaSupport.upload(MediaSupport.bytes(count: 9_000, seed: 99), name: "v2.bin", from: alice)
        let edited = try await alice.call(API.functions.messages.EditMessage(
            peer: toBob, id: sentID.id, message: "second version",
            media: .inputMediaUploadedDocument(.init(file: replacement, mimeType: "application/octet-stream", attributes: []))))
        guard case let .updates(editedValue) = edited, case let .updateEditMessage(edit)? = editedValue.updates.first,
              case let .message(message) = edit.message, case let .messageMediaDocument(media)? = message.media,
              case let .document(second)? = media.document else { Issue.record("no edited document"); return }
        #expect(second.id != first.id && second.size == 9_000 && message.message == "second version")
        guard case let .updates(pushed) = try await bob.nextPush(), case let .updateEditMessage(bobsEdit)? = pushed.updates.first,
              case let .message(bobsMessage) = bobsEdit.message, case let .messageMediaDocument(bobsMedia)? = bobsMessage.media,
              case let .document(bobsDocument)? = bobsMedia.document else { Issue.record("no edit pushed"); return }
        #expect(bobsDocument.id == second.id)
        #expect(await MediaSupport.refusal(API.functions.messages.EditMessage(peer: toBob, id: sentID.id, message: "second version"),
                                           on: alice) == "MESSAGE_NOT_MODIFIED")
        let text = try await send("words only", to: toBob, from: alice)
        #expect(await MediaSupport.refusal(API.functions.messages.EditMessage(
            peer: toBob, id: text.id, media: .inputMediaDocument(.init(id: .inputDocument(.init(
                id: second.id, accessHash: second.accessHash, fileReference: second.fileReference))))), on: alice) == "MEDIA_PREV_INVALID")

        // Bob forwards it to Carol: the copy names the same document.
        let forwarded = try await bob.call(API.functions.messages.ForwardMessages(
            fromPeer: try await inputUser(1001, in: bob), id: [message.id], randomId: [.random(in: 1...Int64.max)],
            toPeer: try await inputUser(1003, in: bob)))
        #expect(MediaSupport.document(in: forwarded)?.id == second.id)
        await alice.close()
        await bob.close()
        try await harness.stop()
    }

    @Test func aRetriedSendGetsItsFirstAnswerWithoutTheUpload() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let randomID = Int64.random(in: 1...Int64.max)
        let file = try await MediaSupport.upload(MediaSupport.bytes(count: 3_000), from: alice)
        let call = API.functions.messages.SendMedia(peer: try await inputUser(1002, in: alice), media: .inputMediaUploadedDocument(.init(
            file: file, mimeType: "text/plain", attributes: [])), message: "once", randomId: randomID)
        let first = try #require(MediaSupport.document(in: try await alice.call(call)))
        #expect(MediaSupport.document(in: try await alice.call(call))?.id == first.id, "the retry's answer names the first send's document")
        await alice.close()
        try await harness.stop()
    }
}

/// Media in a difference: the logged update carries it (the fast encoding of plain messages once left it out, which a
/// client catching up, or a push from another process, showed as a message without its file).
@Suite struct MediaDifferenceTests {
    @Test(arguments: StorageBackend.all) func aDifferenceCarriesTheMedia(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let before = try await state(of: bob)
        let sent = try await MediaSearchTests.sendDocument([], caption: "while away", to: try await inputUser(1002, in: alice), from: alice)
        let document = try #require(MediaSupport.document(in: sent))
        guard case let .difference(difference) = try await bob.call(API.functions.updates.GetDifference(
            pts: before.pts, date: before.date, qts: before.qts)),
            case let .message(message)? = difference.newMessages.last, case let .messageMediaDocument(media)? = message.media,
            case let .document(listed)? = media.document else { Issue.record("no media in the difference"); return }
        #expect(listed.id == document.id && message.message == "while away")
        await alice.close()
        await bob.close()
        try await harness.stop()
    }
}
