import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Files over real sockets on both backends: a document uploaded in parts, sent, pushed, listed in history and
/// downloaded in ranges byte for byte; a photo made into Telegram's sizes; a big file; the same bytes stored once.
@Suite(.timeLimit(.minutes(3)))
struct MediaMessageTests {
    @Test(arguments: StorageBackend.all) func aDocumentIsUploadedSentPushedListedAndDownloaded(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let content = MediaSupport.bytes(count: 1_300_000, seed: 7)
        let file = try await MediaSupport.upload(content, name: "report.pdf", from: alice)
        let sent = try await alice.call(API.functions.messages.SendMedia(
            peer: try await inputUser(1002, in: alice),
            media: .inputMediaUploadedDocument(.init(file: file, mimeType: "application/pdf", attributes: [])),
            message: "the report", randomId: .random(in: 1...Int64.max)))
        let document = try #require(MediaSupport.document(in: sent))
        #expect(document.size == Int64(content.count) && document.mimeType == "application/pdf" && document.dcId == 2)
        #expect(document.attributes == [.documentAttributeFilename(.init(fileName: "report.pdf"))])

        // Bob's push names the document; so do his history and a download of it in 512 KiB requests.
        let pushed = try #require(MediaSupport.document(in: try await bob.nextPush()))
        #expect(pushed.id == document.id && pushed.fileReference == document.fileReference)
        guard case let .messages(history) = try await bob.call(API.functions.messages.GetHistory(
            peer: try await inputUser(1001, in: bob), offsetId: 0, offsetDate: 0, addOffset: 0, limit: 1, maxId: 0, minId: 0, hash: 0)),
            case let .message(last)? = history.messages.first, case let .messageMediaDocument(listed)? = last.media
        else { Issue.record("no document in Bob's history"); return }
        #expect(last.message == "the report" && listed.document.map { if case let .document(d) = $0 { d.id } else { 0 } } == document.id)
        #expect(try await MediaSupport.download(MediaSupport.location(of: pushed), size: content.count, from: bob) == content)

        // A range with `precise`, and past the end.
        guard case let .file(piece) = try await bob.call(API.functions.upload.GetFile(
            precise: true, location: MediaSupport.location(of: pushed), offset: 1_024 * 1_000, limit: 200 * 1_024)),
            case let .file(past) = try await bob.call(API.functions.upload.GetFile(
                location: MediaSupport.location(of: pushed), offset: 2 << 20, limit: 4_096))
        else { Issue.record("no ranges"); return }
        #expect([UInt8](piece.bytes) == Array(content[1_024_000..<min(content.count, 1_024_000 + 204_800)]))
        #expect(past.bytes.isEmpty)

        // The same bytes again are one content: on SQLite, one file under files/.
        let again = try await MediaSupport.upload(content, name: "copy.pdf", from: alice)
        _ = try await alice.call(API.functions.messages.SendMedia(
            peer: try await inputUser(1002, in: alice), media: .inputMediaUploadedDocument(.init(file: again, mimeType: "application/pdf", attributes: [])),
            message: "", randomId: .random(in: 1...Int64.max)))
        if backend == .sqlite {
            let stored = try FileManager.default.subpathsOfDirectory(atPath: harness.directory + "/files").filter { !$0.hasPrefix(".") && $0.count > 3 }
            #expect(stored.count == 1, "\(stored)")
            let uploads = try FileManager.default.subpathsOfDirectory(atPath: harness.directory + "/uploads").filter { $0.split(separator: "/").count == 3 }
            #expect(uploads.isEmpty, "finished uploads leave no parts: \(uploads)")
        }
        await alice.close()
        await bob.close()
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func aPhotoIsServedInTelegramsSizes(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let jpeg = try #require(PhotoProcessing.jpeg(rgb: PhotoProcessingTests.gradient(width: 1600, height: 1200), width: 1600, height: 1200))
        let file = try await MediaSupport.upload(jpeg, partSize: 64 * 1024, name: "photo.jpg", from: alice)
        let sent = try await alice.call(API.functions.messages.SendMedia(
            peer: try await inputUser(1002, in: alice), media: .inputMediaUploadedPhoto(.init(file: file)), message: "",
            randomId: .random(in: 1...Int64.max)))
        let photo = try #require(MediaSupport.photo(in: sent))
        let types = photo.sizes.map { size -> String in
            switch size {
            case let .photoStrippedSize(value): value.type
            case let .photoSize(value): "\(value.type) \(value.w)x\(value.h)"
            default: "?"
            }
        }
        #expect(types == ["i", "s 100x75", "m 320x240", "x 800x600", "y 1280x960"])
        guard case let .photoSize(largest)? = photo.sizes.last else { Issue.record("no sizes"); return }
        let downloaded = try await MediaSupport.download(MediaSupport.location(of: photo, size: "y"), size: Int(largest.size), from: alice)
        let decoded = try #require(PhotoProcessing.pixels(of: downloaded))
        #expect(downloaded.count == Int(largest.size) && decoded.width == 1280 && decoded.height == 960)

        // Sent again by id, access hash and reference: the same photo.
        let again = try await alice.call(API.functions.messages.SendMedia(
            peer: try await inputUser(1003, in: alice),
            media: .inputMediaPhoto(.init(id: .inputPhoto(.init(id: photo.id, accessHash: photo.accessHash, fileReference: photo.fileReference)))),
            message: "again", randomId: .random(in: 1...Int64.max)))
        #expect(MediaSupport.photo(in: again)?.id == photo.id)
        await alice.close()
        try await harness.stop()
    }

    @Test func aBigFileTravelsInBigParts() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let content = MediaSupport.bytes(count: 12 * 1024 * 1024 + 12_345, seed: 3)
        let file = try await MediaSupport.upload(content, name: "big.bin", from: alice)
        guard case .inputFileBig = file else { Issue.record("not a big file"); return }
        let sent = try await alice.call(API.functions.messages.SendMedia(
            peer: try await inputUser(1002, in: alice),
            media: .inputMediaUploadedDocument(.init(file: file, mimeType: "application/octet-stream",
                                                     attributes: [.documentAttributeVideo(.init(duration: 3, w: 640, h: 480))])),
            message: "", randomId: .random(in: 1...Int64.max)))
        let document = try #require(MediaSupport.document(in: sent))
        guard case let .messageMediaDocument(media)? = MediaSupport.media(in: sent) else { Issue.record("no media"); return }
        #expect(media.video && document.size == Int64(content.count))
        #expect(try await MediaSupport.download(MediaSupport.location(of: document), size: content.count, chunk: 1 << 20, from: alice) == content)
        await alice.close()
        try await harness.stop()
    }
}
