import Foundation
import Logging
import MTProto
import MTProtoNIO
import Postbox
import Synchronization
import SyncServer
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// Files through `Account` over real sockets: a download and an upload stopped half-way (the account closed, as a
/// kill leaves it) go on from their parts after a reopen; two readers share one fetch; downloads use at most four
/// workers per data center; a file
/// on another data center comes through `FILE_MIGRATE`; an expired file reference is refreshed.
@Suite(.timeLimit(.minutes(3)))
struct MediaTransferTests {
    static func file(_ directory: String, megabytes: Int, seed: UInt8) throws -> String {
        let path = directory + "/source-\(seed).bin"
        var block = [UInt8](repeating: seed, count: 1 << 20)
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        for index in 0..<megabytes {
            for offset in stride(from: 0, to: block.count, by: 4096) { block[offset] = UInt8(truncatingIfNeeded: index &* 31 &+ offset >> 12) }
            try handle.write(contentsOf: block)
        }
        try handle.close()
        return path
    }

    /// The message with media Bob's store has from Alice, once it arrived.
    static func received(by bob: Account) async throws -> Message {
        var found: Message?
        _ = try await TestWorld.eventually {
            found = try await bob.postbox.read { transaction in
                try transaction.latestMessages(peer: StoreMapping.user(1001), namespace: StoreMapping.cloudMessages, limit: 5)
                    .first { $0.media != nil }
            }
            return found != nil
        }
        return try #require(found)
    }

    @Test func aDownloadStoppedHalfWayGoesOnFromItsParts() async throws {
        try await AccountTests.withServer("media-download") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            var bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let source = try Self.file(root, megabytes: 50, seed: 1)
            try await alice.sendFile(source, to: try await alice.resolve(username: "bob"))
            let message = try await Self.received(by: bob)
            let size = Int64(50 << 20)

            // Bob's download is cut when half of it is held: his account closes under it.
            let half = Atomic<Bool>(false)
            let first = Task { [bob] in
                try await bob.download(message.id) { progress in
                    if progress.held >= size / 2 { half.store(true, ordering: .relaxed) }
                }
            }
            _ = try await TestWorld.eventually(60) { half.load(ordering: .relaxed) }
            await bob.close()
            _ = try? await first.value
            let held = try await bob.downloader.box.heldRanges(MessageMedia.Document.resourceID(of: message)).reduce(Int64(0)) { $0 + Int64($1.count) }
            #expect(held >= size / 2 && held < size, "held \(held) of \(size) when cut")

            bob = try await Account.open(AccountTests.configuration(root + "/bob", server))
            // Two readers at once share one fetch.
            async let one = bob.download(message.id)
            async let another = bob.download(message.id)
            let (path, other) = try await (one, another)
            let fetched = await bob.downloader.bytesFetched
            #expect(path == other)
            #expect(fetched == size - held, "the reopened account fetched only what was missing, once for both readers")
            #expect(FileManager.default.contentsEqual(atPath: path, andPath: source))
            #expect(await bob.network.accounting.tcpConnections <= 1 + 4, "the main connection and at most four workers")
            await bob.close()
            await alice.close()
        }
    }

    @Test func anUploadStoppedHalfWayGoesOnWithItsParts() async throws {
        try await AccountTests.withServer("media-upload") { server, root in
            var alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
            let source = try Self.file(root, megabytes: 24, seed: 2)
            let size = Int64(24 << 20)
            _ = try await alice.resolve(username: "bob")
            let half = Atomic<Bool>(false)
            let first = Task { [alice] in
                try await alice.sendFile(source, to: StoreMapping.user(1002)) { done, total in
                    if done >= total / 2 { half.store(true, ordering: .relaxed) }
                }
            }
            _ = try await TestWorld.eventually(60) { half.load(ordering: .relaxed) }
            await alice.close()
            _ = try? await first.value
            let sentBefore = await alice.uploader.bytesSent

            alice = try await Account.open(AccountTests.configuration(root + "/alice", server))
            try await alice.sendFile(source, to: StoreMapping.user(1002))
            let sentAfter = await alice.uploader.bytesSent
            #expect(sentBefore >= size / 2 && sentAfter <= size - sentBefore + Int64(4 * MediaUploader.partSize),
                    "the reopened account sent \(sentAfter) of \(size) after \(sentBefore)")
            let message = try await Self.received(by: bob)
            let path = try await bob.download(message.id)
            #expect(FileManager.default.contentsEqual(atPath: path, andPath: source))
            await bob.close()
            await alice.close()
        }
    }

    /// A file whose data center the client has wrong is found through `FILE_MIGRATE_X`; a file on the other data center
    /// is fetched there with an exported authorization; a stale reference is refreshed by fetching the message again.
    @Test func migratesAndStaleReferencesAreFollowed() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("media-dcs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true, sendsPerSecond: 0, dcCount: 2,
            initialRSAKey: TestServerKey.key),
            logger: Logger(label: "test"))
        // Alice lives on DC 1, Bob on DC 2: Bob's file is on DC 2, fetched by Alice there.
        let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
        let bob = try await AccountTests.logIn(TestWorld.bobPhone, root + "/bob", server)
        let source = try Self.file(root, megabytes: 2, seed: 3)
        try await bob.sendFile(source, to: try await bob.resolve(username: "alice"))
        var found: Message?
        _ = try await TestWorld.eventually {
            found = try await alice.postbox.read { transaction in
                try transaction.latestMessages(peer: StoreMapping.user(1002), namespace: StoreMapping.cloudMessages, limit: 5).first { $0.media != nil }
            }
            return found != nil
        }
        let message = try #require(found)
        guard case let .document(document)? = message.media else { Issue.record("no document"); return }
        #expect(document.dc == 2 && document.fileName == "source-3.bin" && document.size == 2 << 20)
        #expect(message.tags.contains(StoreMapping.fileTag), "a tag-filtered history view lists the chat's files")
        #expect(FileManager.default.contentsEqual(atPath: try await alice.download(message.id), andPath: source))

        // The same file told to be on DC 1, with a stale reference: a migrate, then a refresh.
        var wrong = document.resource
        wrong.dc = 1
        guard case let .inputDocumentFileLocation(location) = wrong.location else { return }
        wrong.location = .inputDocumentFileLocation(.init(id: location.id, accessHash: location.accessHash, fileReference: Data([2, 0, 0]),
                                                          thumbSize: ""))
        let other = MediaDownloader(box: try MediaBox(directory: root + "/other-media"), network: alice.network)
        let input = try await alice.inputPeer(StoreMapping.user(1002))
        let (network, stale) = (alice.network, wrong)
        let path = try await other.download(stale, refresh: {
            try await Account.freshLocation(of: message.id, resource: stale, peer: input, network: network)
        })
        #expect(FileManager.default.contentsEqual(atPath: path, andPath: source))
        await alice.close()
        await bob.close()
        try await server.stop()
    }
}

extension MessageMedia.Document {
    /// The media box id of a message's document (tests read its held ranges).
    static func resourceID(of message: Message) -> String {
        message.media?.resource?.id ?? ""
    }
}
