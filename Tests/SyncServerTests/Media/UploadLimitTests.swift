import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Hostile uploads and downloads over real sockets: each gets Telegram's error and leaves nothing behind.
@Suite(.timeLimit(.minutes(3)))
struct UploadLimitTests {
    static func part(_ fileID: Int64, _ number: Int32, size: Int) -> API.functions.upload.SaveFilePart {
        .init(fileId: fileID, filePart: number, bytes: Data(MediaSupport.bytes(count: size, seed: UInt64(bitPattern: Int64(number)) &+ 1)))
    }

    static func bigPart(_ fileID: Int64, _ number: Int32, of total: Int32, size: Int) -> API.functions.upload.SaveBigFilePart {
        .init(fileId: fileID, filePart: number, fileTotalParts: total, bytes: Data(MediaSupport.bytes(count: size)))
    }

    static func sendDocument(_ file: API.InputFile, to peer: API.InputPeer) -> API.functions.messages.SendMedia {
        .init(peer: peer, media: .inputMediaUploadedDocument(.init(file: file, mimeType: "text/plain", attributes: [])), message: "",
              randomId: .random(in: 1...Int64.max))
    }

    @Test func partsOfTheWrongSizeOrPlaceAreRefused() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let refusal = { (call: any TLFunction) async -> String? in
            if let call = call as? API.functions.upload.SaveFilePart { return await MediaSupport.refusal(call, on: alice) }
            if let call = call as? API.functions.upload.SaveBigFilePart { return await MediaSupport.refusal(call, on: alice) }
            return "not a part"
        }
        #expect(await refusal(Self.part(1, 0, size: 0)) == "FILE_PART_EMPTY")
        #expect(await refusal(Self.part(1, 0, size: 512 * 1024 + 1024)) == "FILE_PART_TOO_BIG")
        #expect(await refusal(Self.part(1, -1, size: 1024)) == "FILE_PART_INVALID")
        #expect(await refusal(Self.part(1, 40, size: 512 * 1024)) == "FILE_PART_INVALID", "past 10 MiB is a big file")
        #expect(await refusal(Self.part(1, 4_000, size: 1024)) == "FILE_PART_INVALID", "at most 4,000 parts")
        #expect(await refusal(Self.part(2, 0, size: 128 * 1024)) == nil)
        #expect(await refusal(Self.part(2, 1, size: 256 * 1024)) == "FILE_PART_SIZE_CHANGED")
        #expect(await refusal(Self.bigPart(2, 1, of: 30, size: 128 * 1024)) == "FILE_PARTS_INVALID", "a small upload cannot turn big")

        #expect(await refusal(Self.bigPart(3, 0, of: 0, size: 512 * 1024)) == "FILE_PARTS_INVALID")
        #expect(await refusal(Self.bigPart(3, 0, of: 4_001, size: 512 * 1024)) == "FILE_PARTS_INVALID")
        #expect(await refusal(Self.bigPart(3, 0, of: 1_000_000_000, size: 512 * 1024)) == "FILE_PARTS_INVALID")
        #expect(await refusal(Self.bigPart(3, 30, of: 30, size: 512 * 1024)) == "FILE_PART_INVALID")
        #expect(await refusal(Self.bigPart(3, 0, of: 30, size: 1000)) == "FILE_PART_SIZE_INVALID")
        #expect(await refusal(Self.bigPart(3, 0, of: 30, size: 3 * 1024)) == "FILE_PART_SIZE_INVALID", "3 KiB does not divide 512 KiB")
        #expect(await refusal(Self.bigPart(3, 0, of: 30, size: 512 * 1024)) == nil)
        #expect(await refusal(Self.bigPart(3, 1, of: 30, size: 256 * 1024)) == "FILE_PART_SIZE_CHANGED")
        #expect(await refusal(Self.bigPart(3, 1, of: 31, size: 512 * 1024)) == "FILE_PARTS_INVALID", "the count changed")
        await alice.close()
        try await harness.stop()
    }

    @Test func anUploadThatLiesIsRefusedWhenUsedAndLeavesNothing() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await inputUser(1002, in: alice)
        for number in 0..<2 { _ = try await alice.call(Self.part(10, Int32(number), size: 64 * 1024)) }
        let missing = API.InputFile.inputFile(.init(id: 10, parts: 3, name: "a", md5Checksum: ""))
        #expect(await MediaSupport.refusal(Self.sendDocument(missing, to: bob), on: alice) == "FILE_PART_2_MISSING")
        let fewer = API.InputFile.inputFile(.init(id: 10, parts: 1, name: "a", md5Checksum: ""))
        #expect(await MediaSupport.refusal(Self.sendDocument(fewer, to: bob), on: alice) == "FILE_PARTS_INVALID")
        let never = API.InputFile.inputFile(.init(id: 99, parts: 1, name: "a", md5Checksum: ""))
        #expect(await MediaSupport.refusal(Self.sendDocument(never, to: bob), on: alice) == "FILE_PART_0_MISSING")
        let wrongSum = API.InputFile.inputFile(.init(id: 10, parts: 2, name: "a", md5Checksum: String(repeating: "0", count: 32)))
        #expect(await MediaSupport.refusal(Self.sendDocument(wrongSum, to: bob), on: alice) == "MD5_CHECKSUM_INVALID")
        let notHex = API.InputFile.inputFile(.init(id: 10, parts: 2, name: "a", md5Checksum: "zz"))
        #expect(await MediaSupport.refusal(Self.sendDocument(notHex, to: bob), on: alice) == "MD5_CHECKSUM_INVALID")
        let contents = (try? FileManager.default.subpathsOfDirectory(atPath: harness.directory + "/files")) ?? []
        #expect(contents.filter { $0.count > 3 }.isEmpty, "a refused upload stores no content: \(contents)")

        // Not an image as a photo: IMAGE_PROCESS_FAILED, and the upload is gone.
        let text = API.InputFile.inputFile(.init(id: 10, parts: 2, name: "a.jpg", md5Checksum: ""))
        let photo = API.functions.messages.SendMedia(peer: bob, media: .inputMediaUploadedPhoto(.init(file: text)), message: "",
                                                     randomId: .random(in: 1...Int64.max))
        #expect(await MediaSupport.refusal(photo, on: alice) == "IMAGE_PROCESS_FAILED")
        #expect(await MediaSupport.refusal(Self.sendDocument(text, to: bob), on: alice) == "FILE_PART_0_MISSING")
        let parts = (try? FileManager.default.subpathsOfDirectory(atPath: harness.directory + "/uploads")) ?? []
        #expect(parts.filter { $0.split(separator: "/").count == 3 }.isEmpty, "\(parts)")
        await alice.close()
        try await harness.stop()
    }

    @Test func aUsersQuotaBoundsWhatTheyUpload() async throws {
        let harness = try await ServerHarness(userStorageQuota: 1 << 20)
        let alice = try await harness.loggedIn(alicePhone)
        let file = try await MediaSupport.upload(MediaSupport.bytes(count: 700 * 1024), from: alice)
        _ = try await alice.call(Self.sendDocument(file, to: try await inputUser(1002, in: alice)))
        #expect(await MediaSupport.refusal(Self.part(20, 0, size: 512 * 1024), on: alice) == "UPLOAD_QUOTA_EXCEEDED")
        #expect(await MediaSupport.refusal(Self.part(20, 0, size: 256 * 1024), on: alice) == nil)
        #expect(await MediaSupport.refusal(Self.part(21, 0, size: 128 * 1024), on: alice) == "UPLOAD_QUOTA_EXCEEDED",
                "700 KiB stored and 256 KiB in progress leave less than 128 KiB")
        let second = API.InputFile.inputFile(.init(id: 20, parts: 1, name: "b", md5Checksum: ""))
        #expect(await MediaSupport.refusal(Self.sendDocument(second, to: try await inputUser(1002, in: alice)), on: alice) == nil)
        await alice.close()
        try await harness.stop()
    }

    /// An upload not used within its lifetime is removed, rows and parts (here a lifetime of 0: the sweep that the
    /// first part starts finds it expired).
    @Test func anUnusedUploadExpires() async throws {
        let harness = try await ServerHarness(uploadLifetime: 0)
        let alice = try await harness.loggedIn(alicePhone)
        #expect(await MediaSupport.refusal(Self.part(30, 0, size: 4096), on: alice) == nil)
        let parts = { ((try? FileManager.default.subpathsOfDirectory(atPath: harness.directory + "/uploads")) ?? [])
            .filter { $0.split(separator: "/").count == 3 } }
        for _ in 0..<100 where !parts().isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        #expect(parts().isEmpty)
        let file = API.InputFile.inputFile(.init(id: 30, parts: 1, name: "a", md5Checksum: ""))
        #expect(await MediaSupport.refusal(Self.sendDocument(file, to: try await inputUser(1002, in: alice)), on: alice) == "FILE_PART_0_MISSING")
        await alice.close()
        try await harness.stop()
    }

    @Test func downloadsFollowTelegramsRangeRulesAndReferences() async throws {
        let harness = try await ServerHarness()
        let alice = try await harness.loggedIn(alicePhone)
        let content = MediaSupport.bytes(count: 2 << 20)
        let sent = try await alice.call(Self.sendDocument(try await MediaSupport.upload(content, from: alice), to: try await inputUser(1002, in: alice)))
        let document = try #require(MediaSupport.document(in: sent))
        let location = MediaSupport.location(of: document)
        let get = { (offset: Int64, limit: Int32, precise: Bool) in
            await MediaSupport.refusal(API.functions.upload.GetFile(precise: precise, location: location, offset: offset, limit: limit), on: alice)
        }
        #expect(await get(0, 0, false) == "LIMIT_INVALID")
        #expect(await get(0, 1000, false) == "LIMIT_INVALID")
        #expect(await get(0, 12 * 1024, false) == "LIMIT_INVALID", "12 KiB does not divide 1 MiB")
        #expect(await get(0, 2 << 20, false) == "LIMIT_INVALID")
        #expect(await get(768 * 1024, 512 * 1024, false) == "LIMIT_INVALID", "crosses a 1 MiB block")
        #expect(await get(100, 4096, false) == "OFFSET_INVALID")
        #expect(await get(-4096, 4096, false) == "OFFSET_INVALID")
        #expect(await get(768 * 1024, 512 * 1024, true) == nil, "precise may cross")
        #expect(await get(1024, 3 * 1024, true) == nil)

        let stale = API.InputFileLocation.inputDocumentFileLocation(.init(id: document.id, accessHash: document.accessHash,
                                                                          fileReference: Data([2, 1, 2, 3]), thumbSize: ""))
        #expect(await MediaSupport.refusal(API.functions.upload.GetFile(location: stale, offset: 0, limit: 4096), on: alice) == "FILE_REFERENCE_EXPIRED")
        let forged = API.InputFileLocation.inputDocumentFileLocation(.init(id: document.id, accessHash: document.accessHash ^ 1,
                                                                           fileReference: document.fileReference, thumbSize: ""))
        #expect(await MediaSupport.refusal(API.functions.upload.GetFile(location: forged, offset: 0, limit: 4096), on: alice) == "LOCATION_INVALID")
        let thumb = API.InputFileLocation.inputDocumentFileLocation(.init(id: document.id, accessHash: document.accessHash,
                                                                          fileReference: document.fileReference, thumbSize: "m"))
        #expect(await MediaSupport.refusal(API.functions.upload.GetFile(location: thumb, offset: 0, limit: 4096), on: alice) == "LOCATION_INVALID")
        await alice.close()
        try await harness.stop()
    }

    /// A file lives on the data center it was uploaded to: another answers FILE_MIGRATE_X, as Telegram does.
    @Test func aFileOnAnotherDataCenterIsAMigrate() async throws {
        let harness = try await ServerHarness(dcCount: 2)
        let bob = try await harness.client(dc: 2)   // Bob's home is DC 2
        try await bob.login(phone: bobPhone)
        let sent = try await bob.call(Self.sendDocument(try await MediaSupport.upload(MediaSupport.bytes(count: 10_000), from: bob),
                                                         to: try await inputUser(1001, in: bob)))
        let document = try #require(MediaSupport.document(in: sent))
        guard case let .exportedAuthorization(exported) = try await bob.call(API.functions.auth.ExportAuthorization(dcId: 1)) else { return }
        let elsewhere = try await harness.client(dc: 1)
        _ = try await elsewhere.call(API.functions.auth.ImportAuthorization(id: exported.id, bytes: exported.bytes))
        let get = API.functions.upload.GetFile(location: MediaSupport.location(of: document), offset: 0, limit: 4096)
        #expect(await MediaSupport.refusal(get, on: elsewhere) == "FILE_MIGRATE_2")
        #expect(await MediaSupport.refusal(get, on: bob) == nil)
        await bob.close()
        await elsewhere.close()
        try await harness.stop()
    }
}
